/** The Decision object of contract 2.1, as it goes on the wire. */
export type DecisionOutcome = 'APPROVE' | 'DECLINE' | 'REVIEW';

export interface WireDecision {
  decisionType: string;
  decision: DecisionOutcome;
  subDecision: string;
  decisionReason: string;
  abuseScore: number;
}
