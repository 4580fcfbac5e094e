/**
 * The default workflows' rules compare the score with the live thresholds: `abuseScore >=
 * modelDeclineAt` (DECLINE) and `abuseScore >= modelReviewAt` (REVIEW). What these rules decide
 * is explained by the merchant's economics (decide.ts), in a merchant's own workflow too.
 */
export const THRESHOLD_CONDITIONS = {
  DECLINE: 'abuseScore >= modelDeclineAt',
  REVIEW: 'abuseScore >= modelReviewAt',
} as const;

/** Which live threshold a rule's condition compares the score with, if it is one of those rules. */
export function thresholdRuleOf(condition: string): keyof typeof THRESHOLD_CONDITIONS | undefined {
  const match = /^\s*abuseScore\s*>=\s*model(Decline|Review)At\s*$/.exec(condition);
  return match ? (match[1] === 'Decline' ? 'DECLINE' : 'REVIEW') : undefined;
}
