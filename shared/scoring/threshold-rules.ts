/**
 * The default workflows' rules compare the score with the event's thresholds: what they decide is
 * explained by the merchant's economics (decide.ts), in a merchant's own workflow too.
 */
export const THRESHOLD_CONDITIONS = {
  DECLINE: 'abuseScore >= modelDeclineAt',
  REVIEW: 'abuseScore >= modelReviewAt',
} as const;

/** A rule comparing the score with a live threshold, whatever the spacing. */
export const THRESHOLD_RULE = /^\s*abuseScore\s*>=\s*model(?:Decline|Review)At\s*$/;
