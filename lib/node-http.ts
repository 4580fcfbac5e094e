/**
 * Stands in for `node:http` in the Lambda bundles (lib/api-function.ts aliases it here). An ESM
 * import of `node:http` builds its ES module facade, which reads every export, and Node 24's lazy
 * `WebSocket`/`MessageEvent` getters there load the whole bundled undici at every cold start, for
 * the few exports the AWS SDK's HTTP handler and middy's util import. `process.getBuiltinModule`
 * returns the same module object without building the facade.
 */
const http = process.getBuiltinModule('node:http');

export default http;
export const { Agent, STATUS_CODES, METHODS, globalAgent, request, get, createServer } = http;
