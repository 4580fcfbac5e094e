import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { deleteDigestKey } from '../digests/digest-keys.ts';
import { deleteMerchantPartitions, type LakeLocation } from '../lake/merchant-partitions.ts';
import { logger, metrics } from '../observability.ts';
import { deleteMerchantObjects } from '../privacy/merchant-objects.ts';
import type { AuditActor } from '../store/audit.ts';
import {
  type DeletedItems,
  deleteMerchantItemsSlice,
  itemScanDone,
  newItemScan,
} from '../store/merchant-items.ts';
import { setMerchantStatus } from '../store/merchants.ts';
import {
  getOffboarding,
  type Offboarding,
  recordOffboardingSlice,
  runningOffboardings,
  startOffboarding,
} from '../store/offboardings.ts';
import type { SliceLimits } from '../store/sliced-search.ts';
import { withdrawContributions } from './network-worker.ts';

/**
 * A merchant that leaves (docs/operations.md, offboarding), as a job: `requestOffboarding` refuses
 * the merchant at once and records the run; the privacy worker (the table's stream in AWS, the local
 * poller) and `admin merchant delete` while it waits run it in time-bounded slices, each recording
 * where it stopped: its network contributions withdrawn, every item it owns deleted (its API keys
 * with them) by a parallel Scan that resumes, its objects in the buckets and its partitions in the
 * lake deleted, its digest key deleted. Every step is safe to repeat: a slice cut off is run again
 * from the last recorded state, and a second run finds nothing. The run's record is the receipt; it
 * lives outside the merchant's keys and outlives it (400 days), so that a restore of the table from
 * before can be offboarded again (privacy replay-tombstones).
 */
export interface OffboardingReceipt {
  merchantId: string;
  status: Offboarding['status'];
  /** Whether the profile was still there (a repeated run finds none). */
  found: boolean;
  keysRevoked: number;
  items: DeletedItems;
  /** Objects per bucket, and the lake's files (`not configured` where no lake was given). */
  objects: Offboarding['objects'];
  /** Its identity-digest key is deleted: anything left in backups can no longer be linked. */
  digestKeyDeleted: boolean;
  startedAt: string;
  /** While running: the step it is at and slices so far. */
  step?: Offboarding['step'];
  slices: number;
  finishedAt?: string;
  reason?: string;
}

/** Parallel Scan segments: DynamoDB reads a big table's segments at once. */
const DEFAULT_SEGMENTS = 8;

/**
 * How long one slice may run: a third of the privacy worker's 15-minute timeout
 * (lib/privacy-stack.ts), as its erasures' slices (shared/use-cases/privacy-requests.ts).
 */
const OFFBOARDING_SLICE_MS = 5 * 60_000;

/** A slice that fails is run again (its write wakes the worker), this many times in a row at most. */
const MAX_OFFBOARDING_ATTEMPTS = 3;

export interface OffboardingSlice extends SliceLimits {
  /** The lake to delete the merchant's partitions from; without one its count is `not configured`. */
  lake?: LakeLocation;
}

/** Refuses the merchant at once (every key, within the key cache's minute) and records the run. */
export async function requestOffboarding(
  merchantId: string,
  by: AuditActor,
  now: number,
  segments = DEFAULT_SEGMENTS,
): Promise<Offboarding> {
  const found = await setMerchantStatus(merchantId, 'suspended', by, now);
  // A run that failed goes on from where it stood; a finished one is run again from the start.
  const failed = await getOffboarding(merchantId);
  if (failed?.status === 'failed') {
    const { reason: _reason, at: _at, ...state } = failed;
    return startOffboarding({ ...state, status: 'running', attempts: 0 }, now);
  }
  return startOffboarding(
    {
      offboardedMerchantId: merchantId,
      status: 'running',
      startedAt: new Date(now).toISOString(),
      found,
      step: 'withdraw',
      scan: newItemScan(segments),
      items: { byKind: {}, total: 0 },
      objects: {},
      slices: 0,
      attempts: 0,
    },
    now,
  );
}

export async function offboardingStatus(merchantId: string): Promise<OffboardingReceipt | undefined> {
  const job = await getOffboarding(merchantId);
  return job && receiptOf(job);
}

/** Slices until the run has ended (`admin merchant delete` waits so; the restore runbook too). */
export async function runOffboardingToEnd(
  merchantId: string,
  options: Omit<OffboardingSlice, 'deadline'> = {},
): Promise<OffboardingReceipt> {
  for (;;) {
    const job = await getOffboarding(merchantId);
    if (!job) throw new Error(`no offboarding of ${merchantId}`);
    if (job.status !== 'running') return receiptOf(job);
    await runOffboardingSlice(job, { ...options, deadline: Date.now() + OFFBOARDING_SLICE_MS });
  }
}

/** One slice of every running offboarding (the local poller's pass, `admin privacy run`). */
export async function runOffboardings(limits: OffboardingSlice, limit = 20): Promise<Offboarding[]> {
  const ended: Offboarding[] = [];
  for (const job of await runningOffboardings(limit)) {
    const next = await runOffboardingSlice(job, limits);
    if (next && next.status !== 'running') ended.push(next);
  }
  return ended;
}

/** The AWS worker's: a run just recorded or advanced, read again by key (a stale record runs nothing). */
export async function runOffboardingOf(merchantId: string, lake: LakeLocation | undefined): Promise<void> {
  const job = await getOffboarding(merchantId);
  if (job?.status === 'running') {
    await runOffboardingSlice(job, { lake, deadline: Date.now() + OFFBOARDING_SLICE_MS });
  }
}

/**
 * Steps until the deadline (at least one), then one write of where it stands. A failure writes an
 * attempt instead, so the run resumes from its last recorded state; it fails after
 * MAX_OFFBOARDING_ATTEMPTS in a row, and `merchant delete` again resumes it.
 */
async function runOffboardingSlice(
  job: Offboarding,
  limits: OffboardingSlice,
): Promise<Offboarding | undefined> {
  let state: Offboarding = { ...job, slices: job.slices + 1, attempts: 0 };
  try {
    do state = await runStep(state, limits);
    while (state.status === 'running' && Date.now() < limits.deadline);
  } catch (error) {
    const attempts = job.attempts + 1;
    const failed = attempts >= MAX_OFFBOARDING_ATTEMPTS;
    logger.warn('offboarding slice failed', { merchantId: job.offboardedMerchantId, step: job.step, error });
    metrics.addMetric('OffboardingSlicesFailed', MetricUnit.Count, 1);
    state = {
      ...job,
      attempts,
      ...(failed ? { status: 'failed', at: new Date().toISOString(), reason: (error as Error).message } : {}),
    };
  }
  return (await recordOffboardingSlice(job, state, Date.now())) ? state : undefined;
}

async function runStep(state: Offboarding, limits: OffboardingSlice): Promise<Offboarding> {
  const merchantId = state.offboardedMerchantId;
  switch (state.step) {
    case 'withdraw':
      await withdrawContributions(merchantId, Date.now());
      return { ...state, step: 'items' };
    case 'items': {
      const { scan, deleted } = await deleteMerchantItemsSlice(merchantId, state.scan, limits);
      const byKind = { ...state.items.byKind };
      for (const [kind, count] of Object.entries(deleted.byKind)) byKind[kind] = (byKind[kind] ?? 0) + count;
      const items = { byKind, total: state.items.total + deleted.total };
      return { ...state, scan, items, step: itemScanDone(scan) ? 'objects' : 'items' };
    }
    case 'objects':
      return { ...state, objects: { ...(await deleteMerchantObjects(merchantId)) }, step: 'lake' };
    case 'lake': {
      const lake = limits.lake ? await deleteMerchantPartitions(merchantId, limits.lake) : 'not configured';
      return { ...state, objects: { ...state.objects, lake }, step: 'digestKey' };
    }
    case 'digestKey':
      await deleteDigestKey(merchantId);
      return { ...state, status: 'done', at: new Date().toISOString() };
  }
}

const receiptOf = (job: Offboarding): OffboardingReceipt => ({
  merchantId: job.offboardedMerchantId,
  status: job.status,
  found: job.found,
  keysRevoked: job.items.byKind.apiKey ?? 0,
  items: job.items,
  objects: job.objects,
  digestKeyDeleted: job.status === 'done',
  startedAt: job.startedAt,
  ...(job.status === 'running' ? { step: job.step } : {}),
  slices: job.slices,
  ...(job.at ? { finishedAt: job.at } : {}),
  ...(job.reason ? { reason: job.reason } : {}),
});
