import { type ASTNode, Environment, type ParseResult } from '@marcbachmann/cel-js';
import type { EventType } from '../contract/endpoints.ts';
import type { WorkflowVariable } from './variables.ts';

/**
 * Compiles workflow conditions with cel-js. One typed Environment per event type, built from the
 * variable catalog the caller passes; each condition is parsed and type-checked once per process and
 * cached by (event type, expression text). This module imports nothing of ours but types, so the
 * Lambda bundles can ship it (with cel-js) as a separate chunk loaded on demand (cel-chunk.ts).
 */

/** Expressions are short rules, not programs: small structural limits keep parse and run cheap. */
const LIMITS = {
  maxAstNodes: 400,
  maxDepth: 32,
  maxListElements: 100,
  maxMapEntries: 50,
  maxCallArguments: 8,
};
/** Bound on cached compilations, so a long-lived process cannot grow without limit. */
const MAX_CACHED = 10_000;

const environments = new Map<EventType, Environment>();

function celEnvironment(eventType: EventType, variables: readonly WorkflowVariable[]): Environment {
  let env = environments.get(eventType);
  if (!env) {
    env = new Environment({ limits: LIMITS });
    // Names and types only: nothing reads an Environment's descriptions (variable-meanings.ts words them).
    for (const variable of variables) env.registerVariable(variable.name, variable.type);
    environments.set(eventType, env);
  }
  return env;
}

export interface ConditionError {
  /** cel-js error code (`unknown_variable`, `no_such_overload`, `unexpected_token`, ...) or `not_boolean`. */
  code: string;
  kind: 'syntax' | 'unknown_variable' | 'type';
  message: string;
  /** 1-based column in the condition text, when known. */
  column: number | undefined;
}

export type CompiledCondition =
  | { ok: true; run: ParseResult; ast: ASTNode }
  | { ok: false; error: ConditionError };

const compiled = new Map<string, CompiledCondition>();

/**
 * Parses and type-checks a condition against the event type's variables (`workflowVariables`),
 * cached, valid or not.
 */
export function compileCondition(
  eventType: EventType,
  expression: string,
  variables: readonly WorkflowVariable[],
): CompiledCondition {
  const cacheKey = `${eventType}\u0000${expression}`;
  const hit = compiled.get(cacheKey);
  if (hit) return hit;
  const result = compileUncached(celEnvironment(eventType, variables), expression);
  if (compiled.size >= MAX_CACHED) compiled.clear();
  compiled.set(cacheKey, result);
  return result;
}

function compileUncached(env: Environment, expression: string): CompiledCondition {
  let run: ParseResult;
  try {
    run = env.parse(expression);
  } catch (error) {
    return { ok: false, error: conditionError(error, 'syntax') };
  }
  const checked = run.check();
  if (!checked.valid) {
    const code = (checked.error as { code?: string } | undefined)?.code ?? 'type_error';
    return {
      ok: false,
      error: conditionError(checked.error, code === 'unknown_variable' ? 'unknown_variable' : 'type'),
    };
  }
  if (checked.type !== 'bool') {
    return {
      ok: false,
      error: {
        code: 'not_boolean',
        kind: 'type',
        message: `the condition is of type ${checked.type}, it must be a bool`,
        column: undefined,
      },
    };
  }
  return { ok: true, run, ast: run.ast };
}

function conditionError(error: unknown, kind: ConditionError['kind']): ConditionError {
  const e = error as
    | { code?: string; summary?: string; message?: string; range?: { start: number } }
    | undefined;
  return {
    code: e?.code ?? kind,
    kind,
    message: e?.summary ?? e?.message?.split('\n')[0] ?? 'invalid condition',
    column: e?.range ? e.range.start + 1 : undefined,
  };
}
