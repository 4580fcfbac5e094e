import type { DecisionOutcome, WireDecision } from '../schemas/decision.ts';
import {
  type EventThresholds,
  type ThresholdPolicy,
  thresholdReason,
  thresholdsForEvent,
} from './decision-thresholds.ts';
import { applyLists, type ListVerdict, listFields, listReason } from './lists.ts';
import { type ModelThresholds, type ScoringModel, scoreWithModel } from './model.ts';
import { thresholdsOf } from './models.ts';
import type { Signals } from './signals/signal.ts';
import { THRESHOLD_RULE } from './threshold-rules.ts';
import { type FieldValue, normalizeFields } from './variables.ts';
import { decisionTypeOf } from './workflow.ts';
import { matchWorkflow, type RuleError, type RunnableWorkflow } from './workflow-engine.ts';

/** A decision with everything needed to explain and replay it later. */
export interface Decision {
  decision: DecisionOutcome;
  subDecision: string;
  decisionType: string;
  reason: string;
  abuseScore: number;
  modelVersion: string;
  workflowVersion: string;
  /** The model's thresholds the workflow read (`modelDeclineAt`, `modelReviewAt`). */
  modelThresholds?: ModelThresholds;
  /** Signal values the model used (the decision's variables). */
  signals: Record<string, number>;
  /** Event fields the workflow saw (variables.ts EVENT_FIELDS, missing ones as zero values). */
  fields?: Record<string, FieldValue>;
  /** Rules that failed to evaluate and so did not hold; absent when none failed. */
  ruleErrors?: RuleError[];
  /** What the merchant's shadow model would have decided; stored, never answered. */
  shadow?: ShadowDecision;
}

interface ShadowDecision {
  modelVersion: string;
  abuseScore: number;
  decision: DecisionOutcome;
  subDecision: string;
}

/** The model that decides and, when the merchant runs one, a model scored beside it in shadow. */
export interface LiveModels {
  active: ScoringModel;
  shadow?: ScoringModel;
}

/** What decides besides the model and the workflow. */
export interface DecisionPolicy {
  /**
   * The merchant's economics, review capacity and good-customer guard: each event's own thresholds
   * (decision-thresholds.ts). Absent: the model's thresholds as they are (replays, benchmarks).
   */
  thresholds?: ThresholdPolicy | undefined;
  /** The block, watch and allow lists the event touches (lists.ts). */
  lists?: ListVerdict;
}

/** Contributions below this many log-odds are too small to name as a reason. */
const REASON_THRESHOLD = 0.25;
const MAX_REASONS = 3;

/**
 * Scores the signals with the model, then runs the workflow over the score, the signal values and
 * the event's fields (the lists' among them), then applies the lists: block over allow over the
 * workflow's branch. Pure.
 */
export function decide(
  models: ScoringModel | LiveModels,
  workflow: RunnableWorkflow,
  signals: Signals,
  fields: Readonly<Record<string, FieldValue>> = {},
  policy: DecisionPolicy = {},
): Decision {
  const { active: model, shadow } = 'active' in models ? models : { active: models, shadow: undefined };
  const values = Object.fromEntries(Object.entries(signals).map(([name, s]) => [name, s.value]));
  const scored = scoreWithModel(model, values);
  const { lists } = policy;
  const normalized = normalizeFields(workflow.eventType, { ...fields, ...listFields(lists) });
  const decisionType = decisionTypeOf(workflow);
  const event = eventThresholds(model, workflow, decisionType, normalized, policy);
  const thresholds = { declineAt: event.declineAt, reviewAt: event.reviewAt };
  const branch = withLists(
    workflow,
    decisionType,
    matchWorkflow(workflow, {
      abuseScore: scored.abuseScore,
      thresholds,
      signals: values,
      fields: normalized,
    }),
    normalized,
  );
  const reasons = scored.contributions
    .filter((c) => c.contribution >= REASON_THRESHOLD)
    .slice(0, MAX_REASONS)
    .map((c) => signals[c.signal]?.evidence)
    .filter((text): text is string => Boolean(text));
  const signalReason = reasons.length > 0 ? reasons.join('; ') : 'no abuse signals in the linked history';
  const listOpening = branch.by && lists ? listReason(lists, branch.by) : undefined;
  const rule = workflow.rules.find((r) => r.name === branch.name);
  const economics =
    !listOpening &&
    policy.thresholds &&
    'cuts' in event &&
    branch.decision !== 'APPROVE' &&
    THRESHOLD_RULE.test(rule?.condition ?? '')
      ? thresholdReason(
          workflow.eventType,
          policy.thresholds.settings,
          event,
          branch.decision,
          scored.abuseScore,
        )
      : undefined;
  const opening = listOpening ? [listOpening] : [economics, branch.reason];
  return {
    decision: branch.decision,
    subDecision: branch.name,
    decisionType,
    reason: [...opening, signalReason].filter(Boolean).join('; '),
    abuseScore: scored.abuseScore,
    modelVersion: scored.modelVersion,
    workflowVersion: workflow.version,
    modelThresholds: thresholds,
    signals: values,
    fields: normalized,
    ...(branch.errors.length > 0 ? { ruleErrors: branch.errors } : {}),
    ...(shadow ? { shadow: shadowDecision(shadow, workflow, decisionType, values, normalized, policy) } : {}),
  };
}

/** This event's thresholds under the policy, or the model's own without one. */
function eventThresholds(
  model: ScoringModel,
  workflow: RunnableWorkflow,
  decisionType: string,
  fields: Record<string, FieldValue>,
  policy: DecisionPolicy,
): EventThresholds | ModelThresholds {
  if (!policy.thresholds) return thresholdsOf(model, workflow.eventType);
  const canReview = decisionType.includes('REVIEW');
  return thresholdsForEvent(workflow.eventType, model, canReview, fields, policy.thresholds);
}

/** The workflow's branch with the lists (read from the fields) applied; `by` names the list that overrode it. */
const withLists = (
  workflow: RunnableWorkflow,
  decisionType: string,
  branch: ReturnType<typeof matchWorkflow>,
  fields: Readonly<Record<string, FieldValue>>,
) => ({ ...branch, ...applyLists(branch, workflow.eventType, decisionType.includes('REVIEW'), fields) });

/** What the shadow model would have decided, at its own thresholds under the same policy and lists. */
function shadowDecision(
  model: ScoringModel,
  workflow: RunnableWorkflow,
  decisionType: string,
  signals: Record<string, number>,
  fields: Record<string, FieldValue>,
  policy: DecisionPolicy,
): ShadowDecision {
  const { abuseScore } = scoreWithModel(model, signals);
  const { declineAt, reviewAt } = eventThresholds(model, workflow, decisionType, fields, policy);
  const branch = withLists(
    workflow,
    decisionType,
    matchWorkflow(workflow, { abuseScore, thresholds: { declineAt, reviewAt }, signals, fields }),
    fields,
  );
  return { modelVersion: model.version, abuseScore, decision: branch.decision, subDecision: branch.name };
}

export function toWireDecision(decision: Decision): WireDecision {
  return {
    decisionType: decision.decisionType,
    decision: decision.decision,
    subDecision: decision.subDecision,
    decisionReason: decision.reason,
    abuseScore: decision.abuseScore,
  };
}
