import type { DecisionOutcome, WireDecision } from '../schemas/decision.ts';
import { type ScoringModel, scoreWithModel } from './model.ts';
import type { Signals } from './signals/signal.ts';
import { decisionTypeOf, matchRule, type Workflow } from './workflow.ts';

/** A decision with everything needed to explain and replay it later. */
export interface Decision {
  decision: DecisionOutcome;
  subDecision: string;
  decisionType: string;
  reason: string;
  abuseScore: number;
  modelVersion: string;
  workflowVersion: string;
  /** Signal values the model used (the decision's variables). */
  signals: Record<string, number>;
}

/** Contributions below this many log-odds are too small to name as a reason. */
const REASON_THRESHOLD = 0.25;
const MAX_REASONS = 3;

export function decide(model: ScoringModel, workflow: Workflow, signals: Signals): Decision {
  const values = Object.fromEntries(Object.entries(signals).map(([name, s]) => [name, s.value]));
  const scored = scoreWithModel(model, values);
  const branch = matchRule(workflow, scored.abuseScore);
  const reasons = scored.contributions
    .filter((c) => c.contribution >= REASON_THRESHOLD)
    .slice(0, MAX_REASONS)
    .map((c) => signals[c.signal]?.evidence)
    .filter((text): text is string => Boolean(text));
  return {
    decision: branch.decision,
    subDecision: branch.name,
    decisionType: decisionTypeOf(workflow),
    reason: reasons.length > 0 ? reasons.join('; ') : 'no abuse signals in the linked history',
    abuseScore: scored.abuseScore,
    modelVersion: scored.modelVersion,
    workflowVersion: workflow.version,
    signals: values,
  };
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
