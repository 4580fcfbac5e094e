import { type Decision, toWireDecision } from '../scoring/decide.ts';

/**
 * The decision part signup, login and account-update responses share (contract 2.6-2.8): a capital
 * `Decisions` array whose entries hold `decisions` arrays of Decision objects.
 */
export function decisionsPart(decision: Decision) {
  return { Decisions: [{ decisions: [toWireDecision(decision)] }] };
}
