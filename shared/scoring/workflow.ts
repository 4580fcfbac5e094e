import { EVENT_TYPES, type EventType } from '../contract/endpoints.ts';
import { DECISION_OUTCOMES, type DecisionOutcome } from '../schemas/decision.ts';
import { THRESHOLD_CONDITIONS } from './threshold-rules.ts';

/**
 * A merchant workflow: ordered rules, the first whose condition holds decides; the default branch
 * ends the list. Conditions are CEL expressions over the event type's variables (variables.ts); the
 * rule's name is the wire `subDecision`. Rules are data: compiled and checked by workflow-engine.ts
 * and workflow-validation.ts, never by code per rule.
 */
export interface WorkflowRule {
  name: string;
  decision: DecisionOutcome;
  /** A CEL expression of type bool, e.g. `abuseScore >= 85 && refundMode == "STORE_CREDIT"`. */
  condition: string;
  /** Optional words put in front of the signal reasons when this rule decides. */
  reason?: string;
}

export interface WorkflowBranch {
  name: string;
  decision: DecisionOutcome;
}

export interface Workflow {
  eventType: EventType;
  version: string;
  rules: readonly WorkflowRule[];
  defaultBranch: WorkflowBranch;
}

/** docs/decisions.md: orders never REVIEW; every other event type may (signup/login only if the merchant adds it). */
export const ALLOWED_OUTCOMES: Record<EventType, readonly DecisionOutcome[]> = {
  order: ['APPROVE', 'DECLINE'],
  return: DECISION_OUTCOMES,
  signup: DECISION_OUTCOMES,
  login: DECISION_OUTCOMES,
  account: DECISION_OUTCOMES,
};

/**
 * The wire `decisionType`: the outcomes this workflow can produce. The contract knows only
 * "APPROVE/DECLINE" and "APPROVE/DECLINE/REVIEW", so APPROVE and DECLINE are always listed.
 */
export function decisionTypeOf(workflow: Workflow): string {
  const outcomes = new Set([...workflow.rules.map((r) => r.decision), workflow.defaultBranch.decision]);
  outcomes.add('APPROVE');
  outcomes.add('DECLINE');
  return DECISION_OUTCOMES.filter((o) => outcomes.has(o)).join('/');
}

const APPROVE_BY_DEFAULT: WorkflowBranch = { name: 'default_approve', decision: 'APPROVE' };

/**
 * The workflows of a merchant that has set none: DECLINE from `modelDeclineAt`, REVIEW (returns and
 * account updates) from `modelReviewAt`, each event's own thresholds from the merchant's economics
 * and the good-customer guard (decision-thresholds.ts, variables.ts).
 */
export const DEFAULT_WORKFLOWS: Record<EventType, Workflow> = {
  order: {
    eventType: 'order',
    version: 'default-order-2',
    rules: [{ name: 'high_abuse_score', decision: 'DECLINE', condition: THRESHOLD_CONDITIONS.DECLINE }],
    defaultBranch: APPROVE_BY_DEFAULT,
  },
  return: {
    eventType: 'return',
    version: 'default-return-2',
    rules: [
      { name: 'high_abuse_score', decision: 'DECLINE', condition: THRESHOLD_CONDITIONS.DECLINE },
      { name: 'elevated_abuse_score', decision: 'REVIEW', condition: THRESHOLD_CONDITIONS.REVIEW },
    ],
    defaultBranch: APPROVE_BY_DEFAULT,
  },
  signup: {
    eventType: 'signup',
    version: 'default-signup-2',
    rules: [{ name: 'high_abuse_score', decision: 'DECLINE', condition: THRESHOLD_CONDITIONS.DECLINE }],
    defaultBranch: APPROVE_BY_DEFAULT,
  },
  login: {
    eventType: 'login',
    version: 'default-login-2',
    rules: [{ name: 'high_abuse_score', decision: 'DECLINE', condition: THRESHOLD_CONDITIONS.DECLINE }],
    defaultBranch: APPROVE_BY_DEFAULT,
  },
  account: {
    eventType: 'account',
    version: 'default-account-2',
    rules: [
      { name: 'high_abuse_score', decision: 'DECLINE', condition: THRESHOLD_CONDITIONS.DECLINE },
      { name: 'elevated_abuse_score', decision: 'REVIEW', condition: THRESHOLD_CONDITIONS.REVIEW },
    ],
    defaultBranch: APPROVE_BY_DEFAULT,
  },
};

export const isEventType = (value: unknown): value is EventType =>
  typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value);
