import type { NetworkAbuseKind } from '../scoring/network-reputation.ts';
import { networkWorkPut } from '../store/network-items.ts';
import type { TransactItems } from '../store/transact.ts';

/**
 * A network member's feedback record tells the network worker what it now contributes: one work
 * item per cause, written in the feedback's own transaction and overwritten by its next state, so
 * the worker (network-worker.ts) always moves the ledger to the record's latest state. A
 * non-member's feedback writes nothing here.
 */
export interface FeedbackContribution {
  merchantId: string;
  /** `dispute:<id>`, `return:<id>`, `review:<id>`: one cause per feedback record. */
  cause: string;
  /** What it confirms now; undefined when nothing (a WON dispute, a disposition reversed). */
  abuse: { kind: NetworkAbuseKind; at: number } | undefined;
  identities: readonly string[];
}

export function networkFeedbackWrites(
  member: boolean | undefined,
  contributions: readonly FeedbackContribution[],
  now: number,
): TransactItems {
  if (!member) return [];
  return contributions.map(({ abuse, ...rest }) =>
    networkWorkPut({ ...rest, ...(abuse ? { abuse } : {}), queuedAt: now }),
  );
}
