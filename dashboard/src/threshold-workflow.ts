import type { Workflow } from './api.ts';

/** A workflow document as the editor holds it (the API gives it a version when it is saved). */
export type WorkflowDraft = Pick<Workflow, 'defaultBranch'> & { rules: Workflow['rules'][number][] };
type Rule = WorkflowDraft['rules'][number];
type Kind = 'DECLINE' | 'REVIEW';

/** A rule deciding on the score alone: `abuseScore >= modelDeclineAt`, `>= modelReviewAt` or `>= N`. */
const isThresholdRule = (rule: Rule, kind: Kind) =>
  rule.decision === kind &&
  /^\s*abuseScore\s*>=\s*(modelDeclineAt|modelReviewAt|\d+(\.\d+)?)\s*$/.test(rule.condition);

/**
 * The live workflow with fixed thresholds: its first DECLINE rule on the score alone becomes
 * `abuseScore >= N` and, when a REVIEW threshold is given, its first such REVIEW rule `abuseScore >=
 * M`. A workflow without one gets it: DECLINE first, REVIEW right after the DECLINE one. Other rules
 * stay as they are. Pure: the Workflows page backtests and saves the result.
 */
export function withThresholds(live: WorkflowDraft, declineAt: number, reviewAt?: number): WorkflowDraft {
  const rules = [...live.rules];
  const place = (kind: Kind, at: number, name: string) => {
    const index = rules.findIndex((rule) => isThresholdRule(rule, kind));
    const rule = { ...(rules[index] ?? { name, decision: kind }), condition: `abuseScore >= ${at}` };
    if (index >= 0) rules[index] = rule;
    else if (kind === 'DECLINE') rules.unshift(rule);
    else rules.splice(rules.findIndex((r) => isThresholdRule(r, 'DECLINE')) + 1, 0, rule);
  };
  place('DECLINE', declineAt, 'high_abuse_score');
  if (reviewAt !== undefined) place('REVIEW', reviewAt, 'elevated_abuse_score');
  return { rules, defaultBranch: live.defaultBranch };
}

/** A draft carried in the URL (`?candidate=`), or undefined when it is not one. */
export function draftFromUrl(text: string | null): WorkflowDraft | undefined {
  if (!text) return undefined;
  try {
    const draft = JSON.parse(text) as Partial<WorkflowDraft>;
    return Array.isArray(draft.rules) && draft.defaultBranch ? (draft as WorkflowDraft) : undefined;
  } catch {
    return undefined;
  }
}
