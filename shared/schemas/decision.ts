import * as z from 'zod';
import { boundedInt, IDENTIFIER_TYPES, idText, MAX_STRING_LENGTH, workflowBranchName } from './fields.ts';

/** The decisions a scored event can get (docs/api.md); workflows, metrics and the wire read this list. */
export const DECISION_OUTCOMES = ['APPROVE', 'DECLINE', 'REVIEW'] as const;
export type DecisionOutcome = (typeof DECISION_OUTCOMES)[number];

const OUTCOME_CHOICE = `(${DECISION_OUTCOMES.join('|')})`;
/** The outcomes a workflow can give, joined by `/`: `APPROVE/DECLINE`, `APPROVE/DECLINE/REVIEW`. */
export const decisionType = () =>
  z
    .string()
    .max(DECISION_OUTCOMES.join('/').length)
    .regex(new RegExp(`^${OUTCOME_CHOICE}(/${OUTCOME_CHOICE})*$`))
    .meta({
      description: 'The decisions possible for this event type',
      examples: ['APPROVE/DECLINE', 'APPROVE/DECLINE/REVIEW'],
    });
/**
 * The reason of a decision: the matched branch's own reason (200 characters at most) and the
 * evidence of up to three signals, each a short sentence.
 */
const decisionReason = () => z.string().max(MAX_STRING_LENGTH);

const decisionFields = {
  decisionType: decisionType(),
  decision: z.enum(DECISION_OUTCOMES),
  subDecision: workflowBranchName().meta({
    description: "Name of the merchant's workflow branch that matched",
  }),
};
const abuseScore = boundedInt(0, 100);

/** The Decision object of docs/api.md, as it goes on the wire. */
export const wireDecisionSchema = z
  .object({ ...decisionFields, decisionReason: decisionReason(), abuseScore })
  .meta({ id: 'Decision' });
export type WireDecision = z.infer<typeof wireDecisionSchema>;

/** A returned line's decision: the same object with `reason` instead of `decisionReason` (docs/decisions.md, Wire format). */
export const returnedLineDecisionSchema = z
  .object({
    // The returned line's first identifier, as the return named it (one of IDENTIFIER_TYPES).
    lineItem: z.object({
      identifierType: z.string().max(Math.max(...IDENTIFIER_TYPES.map((type) => type.length))),
      identifier: idText(),
    }),
    ...decisionFields,
    reason: decisionReason(),
    abuseScore,
  })
  .meta({ id: 'ReturnedLineDecision' });
