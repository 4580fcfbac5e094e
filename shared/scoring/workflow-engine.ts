import { type ASTNode, Environment, type ParseResult } from '@marcbachmann/cel-js';
import type { DecisionOutcome } from '../schemas/decision.ts';
import type { ModelThresholds } from './model.ts';
import { DEFAULT_MODEL_THRESHOLDS } from './models.ts';
import { celActivation, type FieldValue, normalizeFields, workflowVariables } from './variables.ts';
import type { EventType, Workflow, WorkflowBranch } from './workflow.ts';

/**
 * Compiles and runs workflow conditions with cel-js. One typed Environment per event type, built from
 * the variable catalog; each condition is parsed and type-checked once per process and cached by
 * (event type, expression text), so a stored workflow costs a Map lookup per rule on later requests.
 * Evaluation returns the matched branch plus any rule errors instead of throwing (a rule that fails
 * at run time does not hold).
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

export function celEnvironment(eventType: EventType): Environment {
  let env = environments.get(eventType);
  if (!env) {
    env = new Environment({ limits: LIMITS });
    for (const variable of workflowVariables(eventType)) {
      env.registerVariable(variable.name, variable.type, { description: variable.meaning });
    }
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

/** Parses and type-checks a condition (cached, valid or not). */
export function compileCondition(eventType: EventType, expression: string): CompiledCondition {
  const cacheKey = `${eventType}\u0000${expression}`;
  const hit = compiled.get(cacheKey);
  if (hit) return hit;
  const result = compileUncached(celEnvironment(eventType), expression);
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

export interface RuleError {
  rule: string;
  message: string;
}

export interface WorkflowMatch {
  name: string;
  decision: DecisionOutcome;
  /** The matched rule's own reason words, if it has any. */
  reason: string | undefined;
  /** Rules that could not be evaluated (treated as not holding). Empty when all went well. */
  errors: RuleError[];
}

/** The decision variables: what conditions read and what a decision keeps for replay. */
export interface DecisionVariables {
  abuseScore: number;
  /** The deciding model's thresholds; absent (decisions stored before them): the default model's. */
  thresholds?: ModelThresholds | undefined;
  signals: Readonly<Record<string, number>>;
  fields: Readonly<Record<string, FieldValue>>;
}

/** Runs the rules in order over the variables; the first that holds wins, else the default branch. */
export function matchWorkflow(workflow: Workflow, variables: DecisionVariables): WorkflowMatch {
  const { eventType } = workflow;
  const activation = celActivation(
    eventType,
    variables.abuseScore,
    variables.signals,
    normalizeFields(eventType, variables.fields),
    variables.thresholds ?? DEFAULT_MODEL_THRESHOLDS[eventType],
  );
  const errors: RuleError[] = [];
  for (const rule of workflow.rules) {
    const condition = compileCondition(eventType, rule.condition);
    if (!condition.ok) {
      // Possible only if the catalog changed since the workflow was saved (a model dropped a signal).
      errors.push({ rule: rule.name, message: condition.error.message });
      continue;
    }
    let holds: unknown;
    try {
      holds = condition.run(activation);
    } catch (error) {
      errors.push({
        rule: rule.name,
        message: (error as Error).message.split('\n')[0] ?? 'evaluation failed',
      });
      continue;
    }
    if (holds === true) return { name: rule.name, decision: rule.decision, reason: rule.reason, errors };
  }
  return branchMatch(workflow.defaultBranch, errors);
}

const branchMatch = (branch: WorkflowBranch, errors: RuleError[]): WorkflowMatch => ({
  name: branch.name,
  decision: branch.decision,
  reason: undefined,
  errors,
});
