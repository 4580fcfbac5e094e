import * as z from 'zod';

/** The decisions a scored event can get (contract 1); workflows, metrics and the wire read this list. */
export const DECISION_OUTCOMES = ['APPROVE', 'DECLINE', 'REVIEW'] as const;
export type DecisionOutcome = (typeof DECISION_OUTCOMES)[number];

const decisionFields = {
  decisionType: z.string().meta({
    description: 'The decisions possible for this event type',
    examples: ['APPROVE/DECLINE', 'APPROVE/DECLINE/REVIEW'],
  }),
  decision: z.enum(DECISION_OUTCOMES),
  subDecision: z.string().meta({ description: "Name of the merchant's workflow branch that matched" }),
};
const abuseScore = z.int().min(0).max(100);

/** The Decision object of contract 2.1, as it goes on the wire. */
export const wireDecisionSchema = z
  .object({ ...decisionFields, decisionReason: z.string(), abuseScore })
  .meta({ id: 'Decision' });
export type WireDecision = z.infer<typeof wireDecisionSchema>;

/** A returned line's decision: the same object with `reason` instead of `decisionReason` (contract 2.3). */
export const returnedLineDecisionSchema = z
  .object({
    lineItem: z.object({ identifierType: z.string(), identifier: z.string() }),
    ...decisionFields,
    reason: z.string(),
    abuseScore,
  })
  .meta({ id: 'ReturnedLineDecision' });
