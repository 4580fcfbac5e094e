import { deleteDigestKey } from '../digests/digest-keys.ts';
import { deleteMerchantPartitions, type LakeLocation } from '../lake/merchant-partitions.ts';
import { deleteMerchantObjects } from '../privacy/merchant-objects.ts';
import type { AuditActor } from '../store/audit.ts';
import { type DeletedItems, deleteMerchantItems } from '../store/merchant-items.ts';
import { setMerchantStatus } from '../store/merchants.ts';
import { recordOffboarding } from '../store/privacy-requests.ts';
import { withdrawContributions } from './network-worker.ts';

/**
 * A merchant that leaves (docs/operations.md, offboarding): refused at once, its network
 * contributions withdrawn, every item it owns deleted (its API keys with them), its objects in the
 * buckets and its partitions in the lake deleted, and a receipt of counts. Every step is safe to repeat: a run cut off is resumed by
 * running it again, and a second run finds nothing. The receipt outlives the merchant (400 days), so
 * that a restore of the table from before can be offboarded again (privacy replay-tombstones).
 */
export interface OffboardingReceipt {
  merchantId: string;
  /** Whether the profile was still there (a repeated run finds none). */
  found: boolean;
  keysRevoked: number;
  items: DeletedItems;
  /** Objects per bucket, and the lake's files (`not configured` where no lake was given). */
  objects: Awaited<ReturnType<typeof deleteMerchantObjects>> & { lake: number | 'not configured' };
  /** Its identity-digest key is deleted: anything left in backups can no longer be linked. */
  digestKeyDeleted: true;
  finishedAt: string;
}

/** Parallel Scan segments: DynamoDB reads a big table's segments at once. */
const DEFAULT_SEGMENTS = 8;

export async function offboardMerchant(
  merchantId: string,
  by: AuditActor,
  now: number,
  options: { segments?: number; lake?: LakeLocation } = {},
): Promise<OffboardingReceipt> {
  // Suspended first: every key is refused (within the key cache's minute) while the rest runs.
  const found = await setMerchantStatus(merchantId, 'suspended', by, now);
  await withdrawContributions(merchantId, now);
  const items = await deleteMerchantItems(merchantId, options.segments ?? DEFAULT_SEGMENTS);
  const objects = {
    ...(await deleteMerchantObjects(merchantId)),
    lake: options.lake
      ? await deleteMerchantPartitions(merchantId, options.lake)
      : ('not configured' as const),
  };
  await deleteDigestKey(merchantId);
  await recordOffboarding(merchantId, now);
  return {
    merchantId,
    found,
    keysRevoked: items.byKind.apiKey ?? 0,
    items,
    objects,
    digestKeyDeleted: true,
    finishedAt: new Date(now).toISOString(),
  };
}
