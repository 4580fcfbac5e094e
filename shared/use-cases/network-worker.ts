import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { parseIdentityIds } from '../identity/identity-ids.ts';
import { networkKeyOf } from '../network/network-key.ts';
import { readNetworkSecret } from '../network/network-secret.ts';
import { withCause, withSighting } from '../network/reputation.ts';
import { isNetworkKind } from '../scoring/network-reputation.ts';
import { UNMARSHALL_OPTIONS } from '../store/client.ts';
import { keys } from '../store/keys.ts';
import type { Merchant } from '../store/merchants.ts';
import {
  applyContribution,
  dequeueNetworkItem,
  merchantLedgerEntries,
  queuedNetworkItems,
} from '../store/network-contributions.ts';
import { type QueuedNetworkItem, queuedNetworkItem } from '../store/network-items.ts';
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

async function processNetworkItem(item: Record<string, unknown>, now = Date.now()): Promise<void> {
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
  if (still.type === 'work' && still.work.withdraw) await withdrawContributions(still.work.merchantId, now);
  else if (merchant && contributes(merchant, still)) await contribute(still, now);
  await dequeueNetworkItem(still);
}

/** A member now; feedback only if recorded since it last joined (past feedback is not back-filled). */
function contributes(merchant: Merchant, queued: QueuedNetworkItem): boolean {
  if (!merchant.network?.enabled) return false;
  return queued.type === 'sighting' || queued.work.queuedAt >= Date.parse(merchant.network.changedAt);
}

async function contribute(queued: QueuedNetworkItem, now: number): Promise<void> {
  const secret = await readNetworkSecret();
  if (queued.type === 'sighting') {
    if (!isNetworkKind(queued.ref.kind)) return;
    await applyContribution(
      {
        networkKey: networkKeyOf(secret, queued.ref),
        merchantId: queued.merchantId,
        identity: queued.ref,
        change: (ledger) => withSighting(ledger, queued.seenAt),
      },
      now,
    );
    return;
  }
  const { merchantId, cause, abuse } = queued.work;
  for (const ref of parseIdentityIds(queued.work.identities).filter((r) => isNetworkKind(r.kind))) {
    await applyContribution(
      {
        networkKey: networkKeyOf(secret, ref),
        merchantId,
        identity: ref,
        change: (ledger) => withCause(ledger, cause, abuse),
      },
      now,
    );
  }
}

/**
 * Takes back everything the merchant contributed: its ledger entries, page by page, each removed
 * with the reputation rebuilt without it. Cut off, it resumes where the ledger shows. Offboarding
 * runs it too (shared/use-cases/offboard-merchant.ts).
 */
export async function withdrawContributions(merchantId: string, now: number): Promise<void> {
  for (;;) {
    const entries = await merchantLedgerEntries(merchantId, WITHDRAWAL_PAGE);
    if (entries.length === 0) return;
    for (const entry of entries) {
      await applyContribution(
        {
          networkKey: entry.networkKey,
          merchantId,
          identity: entry.identity,
          change: () => ({ causes: {} }),
        },
        now,
      );
    }
  }
}

/** One pass over the queue (local mode, tests): every queued item, oldest first per shard. */
export async function runNetworkWorker(
  options: { merchantId?: string; limit?: number } = {},
): Promise<number> {
  const items = await queuedNetworkItems(options.limit ?? 500, options.merchantId);
  for (const item of items) await processNetworkItem(item);
  return items.length;
}

/** Drains the queue: passes until one finds nothing (tests' deterministic wait for the worker). */
export async function drainNetworkQueue(merchantId?: string): Promise<void> {
  while ((await runNetworkWorker(merchantId ? { merchantId } : {})) > 0) {
    // each pass takes what it processed off the queue
  }
}

/** The worker Lambda's stream records that carry the network marker. */
export async function handleNetworkStream(
  records: readonly DynamoDBRecord[],
): Promise<DynamoDBBatchResponse> {
  const batchItemFailures: DynamoDBBatchResponse['batchItemFailures'] = [];
  for (const record of records) {
    const image = record.dynamodb?.NewImage;
    if (!image) continue;
    try {
      await processNetworkItem(unmarshall(image as Record<string, AttributeValue>, UNMARSHALL_OPTIONS));
    } catch {
      // The stream retries from this record; every step is safe to repeat.
      batchItemFailures.push({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' });
      break;
    }
  }
  return { batchItemFailures };
}
