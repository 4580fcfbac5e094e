import type { EventType } from '../contract/endpoints.ts';
import type { DecisionOutcome } from '../schemas/decision.ts';
import type { ModelThresholds } from './model.ts';
import { DEFAULT_MODEL_THRESHOLDS } from './models.ts';
import { type Activation, compileSimpleCondition } from './simple-conditions.ts';
import { celActivation, type FieldValue, normalizeFields, workflowVariables } from './variables.ts';
import type { Workflow, WorkflowBranch } from './workflow.ts';

/**
 * Runs workflow conditions. `loadWorkflow` compiles each rule once per process (cached by event type
 * and expression text): conditions in the simple subset (simple-conditions.ts, every default
 * workflow's) without cel-js, the others with cel-js, whose module is imported only then. In the
 * Lambda bundles it is a separate chunk (cel-chunk.mjs, lib/api-function.ts), so a cold start whose
 * workflow is a default one never parses it. Matching returns the matched branch plus any rule
 * errors instead of throwing (a rule that fails at run time does not hold).
 */

declare global {
  interface ImportMeta {
    /** Set by the Lambda build (esbuild `define`): the CEL chunk's file beside the bundle. */
    readonly celChunk?: string;
  }
}

type CelChunk = typeof import('./cel-chunk.ts');

let celChunk: Promise<CelChunk> | undefined;

function loadCelChunk(): Promise<CelChunk> {
  celChunk ??=
    import.meta.celChunk === undefined
      ? import('./cel-chunk.ts')
      : (import(new URL(import.meta.celChunk, import.meta.url).href) as Promise<CelChunk>);
  return celChunk;
}

/** A rule's compiled condition: what it holds on, or why it cannot be evaluated. */
type RuleCondition =
  | { ok: true; holds: (activation: Activation) => unknown }
  | { ok: false; message: string };

/** A workflow with its conditions compiled, ready to match synchronously. */
export interface RunnableWorkflow extends Workflow {
  readonly conditions: readonly RuleCondition[];
}

/** Bound on cached compilations, so a long-lived process cannot grow without limit. */
const MAX_CACHED = 10_000;
const compiled = new Map<string, RuleCondition>();

export async function loadWorkflow(workflow: Workflow): Promise<RunnableWorkflow> {
  const conditions: RuleCondition[] = [];
  for (const { condition } of workflow.rules) {
    // Cached conditions (every rule on the warm path) are taken without awaiting anything.
    conditions.push(
      compiled.get(cacheKeyOf(workflow.eventType, condition)) ??
        (await ruleCondition(workflow.eventType, condition)),
    );
  }
  return { ...workflow, conditions };
}

const cacheKeyOf = (eventType: EventType, expression: string) => `${eventType}\u0000${expression}`;

async function ruleCondition(eventType: EventType, expression: string): Promise<RuleCondition> {
  const cacheKey = cacheKeyOf(eventType, expression);
  const variables = workflowVariables(eventType);
  const simple = compileSimpleCondition(variables, expression);
  let condition: RuleCondition;
  if (simple) condition = { ok: true, holds: simple };
  else {
    const cel = (await loadCelChunk()).compileCondition(eventType, expression, variables);
    // Possible only if the catalog changed since the workflow was saved (a model dropped a signal).
    condition = cel.ok ? { ok: true, holds: cel.run } : { ok: false, message: cel.error.message };
  }
  if (compiled.size >= MAX_CACHED) compiled.clear();
  compiled.set(cacheKey, condition);
  return condition;
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
export function matchWorkflow(workflow: RunnableWorkflow, variables: DecisionVariables): WorkflowMatch {
  const { eventType } = workflow;
  const activation = celActivation(
    eventType,
    variables.abuseScore,
    variables.signals,
    normalizeFields(eventType, variables.fields),
    variables.thresholds ?? DEFAULT_MODEL_THRESHOLDS[eventType],
  );
  const errors: RuleError[] = [];
  for (const [index, rule] of workflow.rules.entries()) {
    const condition = workflow.conditions[index];
    if (!condition?.ok) {
      errors.push({ rule: rule.name, message: condition?.message ?? 'condition not compiled' });
      continue;
    }
    let holds: unknown;
    try {
      holds = condition.holds(activation);
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
