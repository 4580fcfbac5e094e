import { describe, expect, it } from 'vitest';
import { draftFromUrl, type WorkflowDraft, withThresholds } from '../../dashboard/src/threshold-workflow.ts';
import { DEFAULT_WORKFLOWS } from '../../shared/scoring/workflow.ts';

/** The console's "use these thresholds": the live workflow with fixed numbers, for the Workflows page. */
const draftOf = (type: 'order' | 'return'): WorkflowDraft => ({
  rules: [...DEFAULT_WORKFLOWS[type].rules],
  defaultBranch: DEFAULT_WORKFLOWS[type].defaultBranch,
});
const conditions = (draft: WorkflowDraft) => draft.rules.map((r) => `${r.decision} ${r.condition}`);
const approve = { name: 'default_approve', decision: 'APPROVE' as const };

describe('withThresholds', () => {
  it.each<[string, WorkflowDraft, number, number | undefined, string[]]>([
    ['the default order rule', draftOf('order'), 60, undefined, ['DECLINE abuseScore >= 60']],
    [
      'both default return rules',
      draftOf('return'),
      90,
      40,
      ['DECLINE abuseScore >= 90', 'REVIEW abuseScore >= 40'],
    ],
    [
      'DECLINE only: the REVIEW rule keeps the live one',
      draftOf('return'),
      90,
      undefined,
      ['DECLINE abuseScore >= 90', 'REVIEW abuseScore >= modelReviewAt'],
    ],
    [
      'a fixed number and the merchant’s other rules',
      {
        rules: [
          { name: 'gift_cards', decision: 'REVIEW', condition: 'giftCardUsed > 0' },
          { name: 'high', decision: 'DECLINE', condition: 'abuseScore >= 85' },
        ],
        defaultBranch: approve,
      },
      70,
      undefined,
      ['REVIEW giftCardUsed > 0', 'DECLINE abuseScore >= 70'],
    ],
    [
      'no threshold rules: added, REVIEW after DECLINE',
      {
        rules: [{ name: 'gift_cards', decision: 'REVIEW', condition: 'giftCardUsed > 0' }],
        defaultBranch: approve,
      },
      80,
      50,
      ['DECLINE abuseScore >= 80', 'REVIEW abuseScore >= 50', 'REVIEW giftCardUsed > 0'],
    ],
  ])('%s', (_, live, declineAt, reviewAt, expected) => {
    const draft = withThresholds(live, declineAt, reviewAt);
    expect(conditions(draft)).toEqual(expected);
    expect(draft.defaultBranch).toEqual(live.defaultBranch);
  });

  it('carries a draft through the URL, and ignores anything else there', () => {
    const draft = withThresholds(draftOf('order'), 60);
    expect(draftFromUrl(JSON.stringify(draft))).toEqual(draft);
    expect(draftFromUrl(null)).toBeUndefined();
    expect(draftFromUrl('{"rules":')).toBeUndefined();
    expect(draftFromUrl('{"rules":[]}')).toBeUndefined();
  });
});
