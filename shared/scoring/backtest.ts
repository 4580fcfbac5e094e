import type { DecisionOutcome } from '../schemas/decision.ts';
import { WORKFLOW_LIMITS } from '../schemas/fields.ts';
import type { Decision } from './decide.ts';
import { applyLists } from './lists.ts';
import { decisionTypeOf } from './workflow.ts';
import { matchWorkflow, type RunnableWorkflow } from './workflow-engine.ts';

/**
 * Re-decides stored decisions with a candidate workflow, from the variables each decision kept (its
 * abuse score, signal values and event fields), so the answer is what the candidate would have said
 * at the time, with no re-scoring; the block and allow lists apply after it as they did then. Pure.
 */
export interface BacktestEvent {
  eventId: string;
  createdAt: string;
  decisions: readonly Decision[];
}

/** An event as a replay reads it: from the table's items or the lake's rows. */
export interface ReplayedEvent extends Omit<BacktestEvent, 'decisions'> {
  decisions: readonly ReplayedDecision[];
}

/** What a stored decision keeps that a replay reads: the table's items and the lake's rows both have it. */
export type ReplayedDecision = Pick<
  Decision,
  'decision' | 'subDecision' | 'abuseScore' | 'modelThresholds' | 'signals' | 'fields'
>;

interface BacktestExample {
  eventId: string;
  createdAt: string;
  abuseScore: number;
  from: { decision: DecisionOutcome; subDecision: string };
  to: { decision: DecisionOutcome; subDecision: string };
}

export interface BacktestReport {
  eventType: string;
  candidateVersion: string;
  events: number;
  decisions: number;
  /** Decisions whose outcome (APPROVE/DECLINE/REVIEW) would change. */
  changed: number;
  /** Decisions with the same outcome but another branch (subDecision). */
  branchChanged: number;
  /** Changed outcomes by "FROM -> TO". */
  transitions: Record<string, number>;
  /** Every changed branch by "FROM (subDecision) -> TO (subDecision)". */
  branchTransitions: Record<string, number>;
  /** Decisions by outcome now and with the candidate. */
  outcomes: { current: Record<string, number>; candidate: Record<string, number> };
  /** Decisions stored before fields were kept: their fields read as zero values. */
  decisionsWithoutFields: number;
  /** Rule evaluation failures under the candidate, by rule. */
  ruleErrors: Record<string, number>;
  examples: BacktestExample[];
}

/** What a backtest over a window stands on. */
export interface BacktestCoverage {
  /** Decision parts the window holds. */
  eventsInWindow: number;
  /** 1: every part; below 1: each part was kept with this probability. */
  sampleRate: number;
  /** Decision parts re-decided. */
  sampled: number;
}

export function backtest(
  candidate: RunnableWorkflow,
  events: readonly ReplayedEvent[],
  maxExamples = WORKFLOW_LIMITS.backtestExamples,
): BacktestReport {
  const report: BacktestReport = {
    eventType: candidate.eventType,
    candidateVersion: candidate.version,
    events: events.length,
    decisions: 0,
    changed: 0,
    branchChanged: 0,
    transitions: {},
    branchTransitions: {},
    outcomes: { current: {}, candidate: {} },
    decisionsWithoutFields: 0,
    ruleErrors: {},
    examples: [],
  };
  const bump = (counts: Record<string, number>, key: string) => {
    counts[key] = (counts[key] ?? 0) + 1;
  };
  const canReview = decisionTypeOf(candidate).includes('REVIEW');
  for (const event of events) {
    for (const stored of event.decisions) {
      report.decisions++;
      if (!stored.fields) report.decisionsWithoutFields++;
      const fields = stored.fields ?? {};
      const branch = matchWorkflow(candidate, {
        abuseScore: stored.abuseScore,
        thresholds: stored.modelThresholds,
        signals: stored.signals ?? {},
        fields,
      });
      const match = {
        ...branch,
        ...applyLists(branch, candidate.eventType, canReview, fields),
      };
      for (const error of match.errors) bump(report.ruleErrors, error.rule);
      bump(report.outcomes.current, stored.decision);
      bump(report.outcomes.candidate, match.decision);
      const sameOutcome = match.decision === stored.decision;
      if (sameOutcome && match.name === stored.subDecision) continue;
      if (sameOutcome) report.branchChanged++;
      else {
        report.changed++;
        bump(report.transitions, `${stored.decision} -> ${match.decision}`);
      }
      bump(
        report.branchTransitions,
        `${stored.decision} (${stored.subDecision}) -> ${match.decision} (${match.name})`,
      );
      if (!sameOutcome && report.examples.length < maxExamples) {
        report.examples.push({
          eventId: event.eventId,
          createdAt: event.createdAt,
          abuseScore: stored.abuseScore,
          from: { decision: stored.decision, subDecision: stored.subDecision },
          to: { decision: match.decision, subDecision: match.name },
        });
      }
    }
  }
  return report;
}
