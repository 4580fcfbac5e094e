import type { DecisionOutcome } from '../schemas/decision.ts';

/**
 * A merchant workflow: ordered rules, the first that holds decides; the default branch ends the list.
 * The rule's name is the wire `subDecision`.
 */
export type EventType = 'order' | 'return' | 'signup' | 'login' | 'account';

export interface WorkflowRule {
  name: string;
  decision: DecisionOutcome;
  /** The rule holds when the abuse score is at least this. */
  minScore: number;
}

export interface Workflow {
  eventType: EventType;
  version: string;
  rules: readonly WorkflowRule[];
  defaultBranch: { name: string; decision: DecisionOutcome };
}

const OUTCOME_ORDER: readonly DecisionOutcome[] = ['APPROVE', 'DECLINE', 'REVIEW'];

/** The wire `decisionType`: every outcome this workflow can produce, e.g. "APPROVE/DECLINE". */
export function decisionTypeOf(workflow: Workflow): string {
  const outcomes = new Set([...workflow.rules.map((r) => r.decision), workflow.defaultBranch.decision]);
  outcomes.add('APPROVE');
  outcomes.add('DECLINE');
  return OUTCOME_ORDER.filter((o) => outcomes.has(o)).join('/');
}

export function matchRule(
  workflow: Workflow,
  abuseScore: number,
): { name: string; decision: DecisionOutcome } {
  return workflow.rules.find((rule) => abuseScore >= rule.minScore) ?? workflow.defaultBranch;
}

export const DEFAULT_WORKFLOWS: Record<EventType, Workflow> = {
  order: {
    eventType: 'order',
    version: 'default-order-1',
    rules: [{ name: 'high_abuse_score', decision: 'DECLINE', minScore: 85 }],
    defaultBranch: { name: 'default_approve', decision: 'APPROVE' },
  },
  return: {
    eventType: 'return',
    version: 'default-return-1',
    rules: [
      { name: 'high_abuse_score', decision: 'DECLINE', minScore: 85 },
      { name: 'elevated_abuse_score', decision: 'REVIEW', minScore: 55 },
    ],
    defaultBranch: { name: 'default_approve', decision: 'APPROVE' },
  },
  signup: {
    eventType: 'signup',
    version: 'default-signup-1',
    rules: [{ name: 'high_abuse_score', decision: 'DECLINE', minScore: 70 }],
    defaultBranch: { name: 'default_approve', decision: 'APPROVE' },
  },
  login: {
    eventType: 'login',
    version: 'default-login-1',
    rules: [{ name: 'high_abuse_score', decision: 'DECLINE', minScore: 70 }],
    defaultBranch: { name: 'default_approve', decision: 'APPROVE' },
  },
  account: {
    eventType: 'account',
    version: 'default-account-1',
    rules: [
      { name: 'high_abuse_score', decision: 'DECLINE', minScore: 85 },
      { name: 'elevated_abuse_score', decision: 'REVIEW', minScore: 50 },
    ],
    defaultBranch: { name: 'default_approve', decision: 'APPROVE' },
  },
};
