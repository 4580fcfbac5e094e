/**
 * The entry of the lazily loaded CEL chunk: only workflow-engine.ts imports this file, dynamically.
 * The Lambda bundles mark it external and build it beside index.mjs as cel-chunk.mjs
 * (lib/api-function.ts), so cel-js is parsed only by a process that meets a condition outside the
 * simple subset (simple-conditions.ts). Every other module imports cel-compiler.ts itself.
 */
export { compileCondition } from './cel-compiler.ts';
