import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { forEachConcurrently } from '../concurrency.ts';
import { parseIdentityIds } from '../identity/identity-ids.ts';
import { withCause, withSighting } from '../network/reputation.ts';
import { logger, metrics } from '../observability.ts';
import { isNetworkKind } from '../scoring/network-reputation.ts';
import { UNMARSHALL_OPTIONS } from '../store/client.ts';
import { identityKey } from '../store/identity-history.ts';
import { keys } from '../store/keys.ts';
import type { Merchant } from '../store/merchants.ts';
import {
  applyContribution,
  dequeueNetworkItem,
  merchantLedgerEntries,
  queuedNetworkItems,
} from '../store/network-contributions.ts';
import {
  type NetworkWork,
  networkKeyFrom,
  type QueuedNetworkItem,
  queuedNetworkItem,
} from '../store/network-items.ts';
import { finishWithdrawal, recordWithdrawalSlice } from '../store/network-withdrawal.ts';
import { getRecord } from '../store/record-once.ts';

/**
 * The network's writer, off every decision's path: the worker Lambda runs it on the table's stream
 * (filtered to items carrying the network marker, which only members' records do) and `npm start`
 * and tests on the queue those items also sit in. Each item is read again by key, so a stale or
 * repeated stream record does what the item asks now, and each contribution is counted once by its
 * ledger (shared/store/network-items.ts). Work of a merchant that is not a member (any more, or
 * queued before it last joined) contributes nothing; a leaving member's withdrawal takes back all.
 */
const WITHDRAWAL_PAGE = 100;
/** Ledger entries withdrawn at once within a page (each its own identity, so they never conflict). */
const WITHDRAWAL_CONCURRENCY = 8;
/**
 * How long the withdrawal slices of one worker invocation may run: well inside the worker's 60 s
 * timeout, with room for the rest of its batch. A slice always finishes the page it started.
 */
const WITHDRAWAL_BUDGET_MS = 30_000;

async function processNetworkItem(
  item: Record<string, unknown>,
  deadline: number,
  now: number,
): Promise<void> {
  const queued = queuedNetworkItem(item);
  if (!queued) return;
  const current = await getRecord<Record<string, unknown>>(
    queued.type === 'work' ? { PK: String(item.PK), SK: String(item.SK) } : queued.key,
  );
  const still = current && queuedNetworkItem(current);
  if (!still) return;
  // The profile by key (the worker needs its membership only, not the merchants store).
  const merchant = await getRecord<Merchant>(
    keys.merchantProfile(still.type === 'work' ? still.work.merchantId : still.merchantId),
  );
  if (still.type === 'work' && still.work.withdraw) {
    // Not finished within the deadline: the slice's progress write brings the item back.
    if (!(await withdrawSlice(still.work, deadline, now))) return;
  } else if (merchant && contributes(merchant, still)) await contribute(still, now);
  await dequeueNetworkItem(still);
}

/** A member now; feedback only if recorded since it last joined (past feedback is not back-filled). */
function contributes(merchant: Merchant, queued: QueuedNetworkItem): boolean {
  if (!merchant.network?.enabled) return false;
  return queued.type === 'sighting' || queued.work.queuedAt >= Date.parse(merchant.network.changedAt);
}

/**
 * A sighting goes under the network key its event computed; a cause goes under the network keys the
 * merchant's identity items carry (an identity the merchant never sighted as a member has none, and
 * contributes nothing). A cause counts only if the sighting was recorded a day before it was queued
 * (reputation.ts), and only within the merchant's daily cap.
 */
async function contribute(queued: QueuedNetworkItem, now: number): Promise<void> {
  if (queued.type === 'sighting') {
    if (!isNetworkKind(queued.ref.kind)) return;
    await applyContribution(
      {
        networkKey: queued.networkKey,
        merchantId: queued.merchantId,
        identity: queued.ref,
        change: (ledger) => withSighting(ledger, queued.seenAt, now),
      },
      now,
    );
    return;
  }
  const { merchantId, cause, abuse, queuedAt } = queued.work;
  for (const ref of parseIdentityIds(queued.work.identities).filter((r) => isNetworkKind(r.kind))) {
    const networkKey = networkKeyFrom(await getRecord(identityKey(merchantId, ref)));
    if (!networkKey) continue;
    const outcome = await applyContribution(
      {
        networkKey,
        merchantId,
        identity: ref,
        change: (ledger) => withCause(ledger, cause, abuse, queuedAt),
      },
      now,
    );
    if (outcome === 'capped') {
      metrics.addMetric('NetworkContributionsCapped', MetricUnit.Count, 1);
      logger.warn('network contribution over the daily cap dropped', { merchantId, cause });
    }
  }
}

/**
 * One slice of a withdrawal (shared/store/network-withdrawal.ts): the merchant's ledger entries,
 * page by page until none is left or the deadline has passed, each removed with the reputation
 * rebuilt without it. Returns whether the withdrawal is finished. Cut off, the next slice resumes
 * from what the ledger still shows, so any number of entries is withdrawn in the end.
 */
async function withdrawSlice(
  work: Pick<NetworkWork, 'merchantId' | 'queuedAt'>,
  deadline: number,
  now: number,
): Promise<boolean> {
  const { merchantId, queuedAt } = work;
  let withdrawn = 0;
  for (;;) {
    const entries = await merchantLedgerEntries(merchantId, WITHDRAWAL_PAGE);
    if (entries.length === 0) {
      await finishWithdrawal(merchantId, queuedAt, withdrawn, Date.now());
      return true;
    }
    await forEachConcurrently(entries, WITHDRAWAL_CONCURRENCY, async (entry) => {
      const removed = await applyContribution(
        {
          networkKey: entry.networkKey,
          merchantId,
          identity: entry.identity,
          change: () => ({ causes: {} }),
        },
        now,
      );
      if (removed === 'written') withdrawn++;
    });
    if (Date.now() >= deadline) {
      await recordWithdrawalSlice(merchantId, queuedAt, withdrawn, Date.now());
      return false;
    }
  }
}

/**
 * Everything the merchant contributed, withdrawn in one run (offboarding,
 * shared/use-cases/offboard-merchant.ts): no withdrawal item is queued, so no progress is recorded.
 */
export async function withdrawContributions(merchantId: string, now: number): Promise<void> {
  await withdrawSlice({ merchantId, queuedAt: -1 }, Number.POSITIVE_INFINITY, now);
}

interface WorkerPass {
  merchantId?: string;
  limit?: number;
  /** The service's clock as the worker runs (tests run it as of an earlier day). */
  now?: number;
  /** How long a withdrawal's slice may run in this pass. */
  withdrawalSliceMs?: number;
}

/**
 * One pass over the queue (local mode, tests): every queued item, oldest first per shard. A
 * withdrawal gets one slice of `withdrawalSliceMs` per pass and stays queued until it is finished.
 */
export async function runNetworkWorker(options: WorkerPass = {}): Promise<number> {
  const items = await queuedNetworkItems(options.limit ?? 500, options.merchantId);
  const deadline = Date.now() + (options.withdrawalSliceMs ?? WITHDRAWAL_BUDGET_MS);
  for (const item of items) await processNetworkItem(item, deadline, options.now ?? Date.now());
  return items.length;
}

/** Drains the queue: passes until one finds nothing (tests' deterministic wait for the worker). */
export async function drainNetworkQueue(options: Omit<WorkerPass, 'limit'> = {}): Promise<void> {
  while ((await runNetworkWorker(options)) > 0) {
    // each pass takes what it processed off the queue
  }
}

/** The worker Lambda's stream records that carry the network marker. */
export async function handleNetworkStream(
  records: readonly DynamoDBRecord[],
): Promise<DynamoDBBatchResponse> {
  const batchItemFailures: DynamoDBBatchResponse['batchItemFailures'] = [];
  const deadline = Date.now() + WITHDRAWAL_BUDGET_MS;
  for (const record of records) {
    const image = record.dynamodb?.NewImage;
    if (!image) continue;
    try {
      await processNetworkItem(
        unmarshall(image as Record<string, AttributeValue>, UNMARSHALL_OPTIONS),
        deadline,
        Date.now(),
      );
    } catch {
      // The stream retries from this record; every step is safe to repeat.
      batchItemFailures.push({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' });
      break;
    }
  }
  return { batchItemFailures };
}
