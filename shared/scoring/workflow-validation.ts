import { type ASTNode, serialize } from '@marcbachmann/cel-js';
import * as z from 'zod';
import type { EventType } from '../contract/endpoints.ts';
import { DECISION_OUTCOMES } from '../schemas/decision.ts';
import { WORKFLOW_LIMITS, workflowBranchName } from '../schemas/fields.ts';
import { type CompiledCondition, type ConditionError, compileCondition } from './cel-compiler.ts';
import { type VariableType, workflowVariables } from './variables.ts';
import { ALLOWED_OUTCOMES, type Workflow, type WorkflowRule } from './workflow.ts';

/**
 * Checks a workflow before it is saved: its shape, each condition (syntax, unknown variables, types,
 * bool result), outcomes the event type cannot have, and rules no event can ever reach. Every problem
 * is one message naming the rule; nothing throws.
 */
export type WorkflowValidation = { valid: true; workflow: Workflow } | { valid: false; errors: string[] };

const MAX_RULES = WORKFLOW_LIMITS.rules;

const OUTCOME = z.enum(DECISION_OUTCOMES);
const BRANCH_NAME = workflowBranchName();

const WORKFLOW_DOCUMENT = z.strictObject({
  eventType: z.string().optional(),
  version: z.string().optional(),
  rules: z
    .array(
      z.strictObject({
        name: BRANCH_NAME,
        decision: OUTCOME,
        condition: z.string().trim().min(1, 'must not be empty').max(WORKFLOW_LIMITS.conditionLength),
        reason: z.string().max(WORKFLOW_LIMITS.reasonLength).optional(),
      }),
    )
    .max(MAX_RULES),
  defaultBranch: z.strictObject({ name: BRANCH_NAME, decision: OUTCOME }),
});

/** Validates `input` (a parsed JSON document) as a workflow of `eventType`; the result carries `version`. */
export function validateWorkflow(eventType: EventType, input: unknown, version: string): WorkflowValidation {
  const parsed = WORKFLOW_DOCUMENT.safeParse(input);
  if (!parsed.success)
    return { valid: false, errors: parsed.error.issues.map((i) => shapeMessage(i, input)) };
  const document = parsed.data;
  const errors: string[] = [];
  if (document.eventType !== undefined && document.eventType !== eventType) {
    errors.push(`eventType "${document.eventType}" does not match --type ${eventType}`);
  }
  const rules: WorkflowRule[] = document.rules.map((r) => ({
    name: r.name,
    decision: r.decision,
    condition: r.condition,
    ...(r.reason ? { reason: r.reason } : {}),
  }));
  const allowed = ALLOWED_OUTCOMES[eventType];
  const outcomeProblem = (decision: string) =>
    (allowed as readonly string[]).includes(decision)
      ? undefined
      : `decision ${decision} is not possible for ${eventType} workflows${eventType === 'order' ? ' (orders never REVIEW)' : ''}; allowed: ${allowed.join(', ')}`;

  const seen = new Map<string, number>();
  rules.forEach((rule, index) => {
    const label = ruleLabel(rule, index);
    const earlier = seen.get(rule.name);
    if (earlier !== undefined)
      errors.push(`${label}: name already used by rule #${earlier + 1}; names must be unique`);
    else seen.set(rule.name, index);
    if (rule.name === document.defaultBranch.name) {
      errors.push(`${label}: name is the default branch's name; names must be unique`);
    }
    const problem = outcomeProblem(rule.decision);
    if (problem) errors.push(`${label}: ${problem}`);
  });
  const defaultProblem = outcomeProblem(document.defaultBranch.decision);
  if (defaultProblem) errors.push(`default branch "${document.defaultBranch.name}": ${defaultProblem}`);

  const compiled = rules.map((rule) =>
    compileCondition(eventType, rule.condition, workflowVariables(eventType)),
  );
  compiled.forEach((condition, index) => {
    if (!condition.ok)
      errors.push(`${ruleLabel(rules[index]!, index)}: ${conditionMessage(condition.error, eventType)}`);
  });
  if (compiled.every((c) => c.ok))
    errors.push(...reachabilityProblems(eventType, rules, compiled, document.defaultBranch.name));

  if (errors.length > 0) return { valid: false, errors };
  return { valid: true, workflow: { eventType, version, rules, defaultBranch: document.defaultBranch } };
}

const ruleLabel = (rule: { name: string }, index: number) => `rule "${rule.name}" (#${index + 1})`;

function conditionMessage(error: ConditionError, eventType: EventType): string {
  const at = error.column !== undefined ? ` at column ${error.column}` : '';
  switch (error.kind) {
    case 'syntax':
      return `syntax error in condition${at}: ${error.message}`;
    case 'unknown_variable': {
      const name = /Unknown variable: (\S+)/.exec(error.message)?.[1];
      return `unknown variable ${name ? `"${name}"` : ''}${at} in condition; \`workflows variables --type ${eventType}\` lists the variables`;
    }
    case 'type':
      return `type error in condition${at}: ${error.message}`;
  }
}

function shapeMessage(issue: z.core.$ZodIssue, input: unknown): string {
  const [first, index, ...rest] = issue.path;
  if (first === 'rules' && typeof index === 'number') {
    const raw = (input as { rules?: { name?: unknown }[] }).rules?.[index];
    const name = typeof raw?.name === 'string' ? ` "${raw.name}"` : '';
    const field = rest.length > 0 ? ` ${rest.join('.')}` : '';
    return `rule${name} (#${index + 1})${field}: ${issue.message}`;
  }
  const path = issue.path.length > 0 ? issue.path.join('.') : 'workflow';
  return `${path}: ${issue.message}`;
}

/* ---------- Reachability: which rules can never decide anything ---------- */

/** A closed or open interval of a numeric variable. Ints are normalized to closed integer bounds. */
interface Interval {
  lo: number;
  loIn: boolean;
  hi: number;
  hiIn: boolean;
}

/** One side of a top-level `||`: a conjunction of variable intervals and other (opaque) conditions. */
interface Conjunction {
  intervals: Map<string, Interval>;
  opaque: Set<string>;
  /** Contradictory: no event satisfies it. */
  empty: boolean;
}

function reachabilityProblems(
  eventType: EventType,
  rules: readonly WorkflowRule[],
  compiled: readonly CompiledCondition[],
  defaultName: string,
): string[] {
  const types = new Map(workflowVariables(eventType).map((v) => [v.name, v.type]));
  const shapes = compiled.map((c) => (c.ok ? shapeOf(c, types) : []));
  const texts = compiled.map((c) => (c.ok ? serialize(c.ast) : ''));
  const problems: string[] = [];
  for (let j = 0; j < rules.length; j++) {
    const label = ruleLabel(rules[j]!, j);
    const shape = shapes[j]!;
    if (shape.every((d) => d.empty)) {
      problems.push(`${label} is unreachable: its condition can never hold`);
      continue;
    }
    for (let i = 0; i < j; i++) {
      const earlier = `rule "${rules[i]!.name}" (#${i + 1})`;
      if (texts[i] === texts[j]) {
        problems.push(`${label} is unreachable: it has the same condition as ${earlier}`);
        break;
      }
      if (alwaysHolds(shapes[i]!)) {
        problems.push(`${label} is unreachable: ${earlier} before it always holds`);
        break;
      }
      if (covers(shapes[i]!, shape)) {
        problems.push(
          `${label} is unreachable: every event matching \`${texts[j]}\` already matches ${earlier} \`${texts[i]}\``,
        );
        break;
      }
    }
  }
  const last = rules.length - 1;
  if (last >= 0 && alwaysHolds(shapes[last]!)) {
    problems.push(
      `default branch "${defaultName}" is unreachable: ${ruleLabel(rules[last]!, last)} always holds; make that outcome the default branch instead`,
    );
  }
  return problems;
}

/** A condition naming no variable is a constant: run it once to know which. */
function shapeOf(
  condition: CompiledCondition & { ok: true },
  types: Map<string, VariableType>,
): Conjunction[] {
  if (!mentionsIdentifier(condition.ast)) {
    let holds = false;
    try {
      holds = condition.run({}) === true;
    } catch {
      // A constant that fails at run time never holds.
    }
    return [{ intervals: new Map(), opaque: new Set(), empty: !holds }];
  }
  return disjunction(condition.ast, types);
}

function mentionsIdentifier(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(mentionsIdentifier);
  if (value === null || typeof value !== 'object' || !('op' in value)) return false;
  const node = value as ASTNode;
  return node.op === 'id' || mentionsIdentifier(node.args);
}

const alwaysHolds = (shape: readonly Conjunction[]) =>
  shape.some((d) => !d.empty && d.intervals.size === 0 && d.opaque.size === 0);

/** Whether every event matching `later` also matches `earlier` (sound, not complete). */
function covers(earlier: readonly Conjunction[], later: readonly Conjunction[]): boolean {
  return later.every((l) => l.empty || earlier.some((e) => !e.empty && implies(l, e)));
}

function implies(from: Conjunction, to: Conjunction): boolean {
  for (const [variable, bound] of to.intervals) {
    const own = from.intervals.get(variable);
    if (!own || !contains(bound, own)) return false;
  }
  for (const text of to.opaque) if (!from.opaque.has(text)) return false;
  return true;
}

function contains(outer: Interval, inner: Interval): boolean {
  const loOk = inner.lo > outer.lo || (inner.lo === outer.lo && (outer.loIn || !inner.loIn));
  const hiOk = inner.hi < outer.hi || (inner.hi === outer.hi && (outer.hiIn || !inner.hiIn));
  return loOk && hiOk;
}

function disjunction(node: ASTNode, types: Map<string, VariableType>): Conjunction[] {
  if (node.op === '||') return node.args.flatMap((side) => disjunction(side, types));
  const conjunction: Conjunction = { intervals: new Map(), opaque: new Set(), empty: false };
  for (const atom of conjuncts(node)) addAtom(conjunction, atom, types);
  return [conjunction];
}

function conjuncts(node: ASTNode): ASTNode[] {
  return node.op === '&&' ? node.args.flatMap(conjuncts) : [node];
}

const FLIPPED: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '==': '==' };

function addAtom(conjunction: Conjunction, node: ASTNode, types: Map<string, VariableType>): void {
  if (node.op === 'value' && typeof node.args === 'boolean') {
    if (!node.args) conjunction.empty = true;
    return;
  }
  const bound = intervalOf(node, types);
  if (!bound) {
    conjunction.opaque.add(serialize(node));
    return;
  }
  const current = conjunction.intervals.get(bound.variable);
  const next = current ? intersect(current, bound.interval) : bound.interval;
  conjunction.intervals.set(bound.variable, next);
  if (isEmpty(next)) conjunction.empty = true;
}

function intervalOf(
  node: ASTNode,
  types: Map<string, VariableType>,
): { variable: string; interval: Interval } | undefined {
  if (!(node.op in FLIPPED)) return undefined;
  const [left, right] = node.args as [ASTNode, ASTNode];
  let op = node.op as string;
  let variable: string | undefined;
  let constant: number | undefined;
  if (left.op === 'id' && numberOf(right) !== undefined) {
    variable = left.args;
    constant = numberOf(right);
  } else if (right.op === 'id' && numberOf(left) !== undefined) {
    variable = right.args;
    constant = numberOf(left);
    op = FLIPPED[op]!;
  }
  const type = variable === undefined ? undefined : types.get(variable);
  if (variable === undefined || constant === undefined || (type !== 'int' && type !== 'double'))
    return undefined;
  const c = constant;
  const raw: Interval =
    op === '>='
      ? { lo: c, loIn: true, hi: Infinity, hiIn: false }
      : op === '>'
        ? { lo: c, loIn: false, hi: Infinity, hiIn: false }
        : op === '<='
          ? { lo: -Infinity, loIn: false, hi: c, hiIn: true }
          : op === '<'
            ? { lo: -Infinity, loIn: false, hi: c, hiIn: false }
            : { lo: c, loIn: true, hi: c, hiIn: true };
  return { variable, interval: type === 'int' ? integral(raw) : raw };
}

function numberOf(node: ASTNode): number | undefined {
  if (node.op === 'value' && (typeof node.args === 'number' || typeof node.args === 'bigint')) {
    return Number(node.args);
  }
  if (node.op === '-_') {
    const inner = numberOf(node.args);
    return inner === undefined ? undefined : -inner;
  }
  return undefined;
}

/** `x > 84` and `x >= 85` are the same set of ints: compare them as such. */
function integral(interval: Interval): Interval {
  const lo = Number.isFinite(interval.lo)
    ? interval.loIn
      ? Math.ceil(interval.lo)
      : Math.floor(interval.lo) + 1
    : interval.lo;
  const hi = Number.isFinite(interval.hi)
    ? interval.hiIn
      ? Math.floor(interval.hi)
      : Math.ceil(interval.hi) - 1
    : interval.hi;
  return { lo, loIn: Number.isFinite(lo), hi, hiIn: Number.isFinite(hi) };
}

function intersect(a: Interval, b: Interval): Interval {
  const lo =
    a.lo > b.lo
      ? { lo: a.lo, loIn: a.loIn }
      : b.lo > a.lo
        ? { lo: b.lo, loIn: b.loIn }
        : { lo: a.lo, loIn: a.loIn && b.loIn };
  const hi =
    a.hi < b.hi
      ? { hi: a.hi, hiIn: a.hiIn }
      : b.hi < a.hi
        ? { hi: b.hi, hiIn: b.hiIn }
        : { hi: a.hi, hiIn: a.hiIn && b.hiIn };
  return { ...lo, ...hi };
}

const isEmpty = (i: Interval) => i.lo > i.hi || (i.lo === i.hi && !(i.loIn && i.hiIn));
