import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { identityDigests } from '../digests/identity-digests.ts';
import { identityId, parseIdentityId, parseIdentityIds } from '../identity/identity-ids.ts';
import { newPrivacyRequestId } from '../ids.ts';
import type { LakeEraser } from '../lake/lake-erasure.ts';
import type { LakeLocation } from '../lake/merchant-partitions.ts';
import { type NetworkLedger, withCause } from '../network/reputation.ts';
import { logger, metrics } from '../observability.ts';
import { plural } from '../plural.ts';
import { exportDocument } from '../privacy/export-document.ts';
import { EXPORT_LINK_SECONDS, exportLink, exportObjectKey, writeExport } from '../privacy/exports-bucket.ts';
import { lakeNamesOf } from '../privacy/lake-names.ts';
import { subjectIdentities } from '../privacy/subject.ts';
import type {
  PrivacyCounts,
  PrivacyRecordKind,
  PrivacyRequestStatus,
  PrivacyRequestType,
  PrivacySubject,
} from '../schemas/privacy.ts';
import { type AuditActor, auditPut } from '../store/audit.ts';
import { UNMARSHALL_OPTIONS } from '../store/client.ts';
import { applyContribution } from '../store/network-contributions.ts';
import { storedNetworkKeys } from '../store/network-items.ts';
import {
  countPrivacyAttempt,
  createPrivacyRequest,
  dueLakeErasures,
  finishPrivacyRequest,
  getPrivacyRequest,
  listOffboarded,
  listTombstones,
  type PrivacyRequest,
  pendingPrivacyRequests,
  recordLakePass,
  recordPrivacySlice,
} from '../store/privacy-requests.ts';
import type { SliceLimits } from '../store/sliced-search.ts';
import { eraseSubjectRecords } from '../store/subject-erasure.ts';
import {
  type FoundKeys,
  findSubjectRecords,
  NEW_SUBJECT_SEARCH,
  type SubjectRecords,
  searchSubjectSlice,
} from '../store/subject-records.ts';
import {
  requestOffboarding,
  runOffboardingOf,
  runOffboardings,
  runOffboardingToEnd,
} from './offboard-merchant.ts';

/**
 * Erase or export one customer's data at one merchant (docs/privacy.md). A request is accepted at
 * once, keeping only the digests of the identifiers it names, and run by the privacy worker in
 * time-bounded slices that resume where the last stopped: the local poller, or in AWS the worker
 * function on the table's stream (lib/privacy-stack.ts). An erasure ends with a tombstone that the
 * restore runbook replays (replayTombstones).
 */
export interface PrivacyActor {
  keyId: string;
  keyName: string;
}

export async function requestPrivacy(
  merchantId: string,
  actor: PrivacyActor,
  type: PrivacyRequestType,
  subject: PrivacySubject,
  now: number,
): Promise<PrivacyRequest> {
  const identities = subjectIdentities(subject, await identityDigests(merchantId)).map(identityId);
  const request: PrivacyRequest = {
    merchantId,
    requestId: newPrivacyRequestId(),
    type,
    status: 'pending',
    identities,
    requestedBy: actor,
    createdAt: new Date(now).toISOString(),
  };
  await createPrivacyRequest(
    request,
    auditPut(merchantId, {
      at: request.createdAt,
      action: 'privacy.requested',
      ...actor,
      subject: `${type} ${request.requestId}`,
      // No identifier, not even a digest: the audit log outlives an erasure's records.
      detail: plural(identities.length, 'identifier'),
    }),
    now,
  );
  return request;
}

/** A slice that fails is tried again (the attempt's write wakes the worker), this many times in all. */
const MAX_ATTEMPTS = 3;

/**
 * How long one slice may search the merchant's listings: a third of the worker's 15-minute
 * timeout (lib/privacy-stack.ts), leaving the rest for the slice that finishes, whose work grows
 * with the subject's records, not with the merchant's.
 */
export const PRIVACY_SLICE_MS = 5 * 60_000;

export interface PrivacyPass {
  limit?: number;
  /** The lake's erasure (lake-erasure.ts): without one, due lake passes wait for a worker that has it. */
  lake?: LakeEraser;
  /** How long after an erasure's first lake pass the second runs (tests make it 0). */
  lakeRecheckMs?: number;
  /** How long each pass's slices may search (tests make it short to see a request in several). */
  sliceMs?: number;
  /** Events each query reads per page (tests make pages small, so a listing spans slices). */
  pageItems?: number;
  /** The lake an offboarding deletes the merchant's partitions from (shared/use-cases/offboard-merchant.ts). */
  offboardingLake?: LakeLocation;
}

/**
 * One pass of the worker (the local poller, `npm run admin -- privacy run`): one slice of every
 * pending request, oldest first. Returns the requests it finished.
 */
export async function runPrivacyWorker(options: PrivacyPass = {}): Promise<PrivacyRequest[]> {
  if (options.lake) await runLakeErasures(options.lake, options);
  const limits = {
    deadline: Date.now() + (options.sliceMs ?? PRIVACY_SLICE_MS),
    pageItems: options.pageItems,
  };
  const finished: PrivacyRequest[] = [];
  for (const request of await pendingPrivacyRequests(options.limit ?? 20)) {
    const outcome = await runPrivacySlice(request, limits);
    if (outcome) finished.push(outcome);
  }
  await runOffboardings({ ...limits, lake: options.offboardingLake }, options.limit);
  return finished;
}

/** Passes until the request has ended (the admin CLI's erase and export wait for theirs). */
export async function runUntilFinished(merchantId: string, requestId: string): Promise<PrivacyRequest> {
  for (;;) {
    const request = await getPrivacyRequest(merchantId, requestId);
    if (!request) throw new Error(`no privacy request ${requestId} at ${merchantId}`);
    if (request.status !== 'pending') return request;
    await runPrivacySlice(request, { deadline: Date.now() + PRIVACY_SLICE_MS });
  }
}

/**
 * The AWS worker (functions/privacy-worker.ts): each stream record names a request that was just
 * recorded, advanced by a slice or counted a failed attempt, or an erasure just done whose first
 * lake pass is due. The request is read again by key, so a stale or repeated record runs what the
 * request needs now, or nothing once it has ended.
 */
export async function handlePrivacyStream(
  records: readonly DynamoDBRecord[],
  lake?: LakeEraser,
  offboardingLake?: LakeLocation,
): Promise<void> {
  for (const record of records) {
    const image = record.dynamodb?.NewImage;
    if (!image) continue;
    const item = unmarshall(image as Record<string, AttributeValue>, UNMARSHALL_OPTIONS);
    if (item.entity === 'offboardedMerchant') {
      await runOffboardingOf(String(item.offboardedMerchantId), offboardingLake);
      continue;
    }
    const { merchantId, requestId } = item;
    const request = await getPrivacyRequest(String(merchantId), String(requestId));
    if (request?.status === 'pending')
      await runPrivacySlice(request, { deadline: Date.now() + PRIVACY_SLICE_MS });
    else if (lake && request?.lakeErasure && Date.parse(request.lakeErasure.dueAt) <= Date.now())
      await runLakePass(request, lake, LAKE_RECHECK_MS);
  }
}

/**
 * An erasure reads the lake twice: at once, then again after this long, by when the rows Firehose
 * still held at the erasure have landed (a buffer of up to 15 minutes, delivered within 1.5 times
 * that; the lake's Stale alarm fires past an hour), so that a late delivery of an erased record's
 * row does not bring the customer back.
 */
export const LAKE_RECHECK_MS = 60 * 60_000;
const LAKE_PASSES = 2;

/**
 * The lake passes due now (the local poller's every pass; in AWS the worker's schedule, and the
 * stream for an erasure's first): each takes the customer's rows out of the lake files that hold
 * them, and counts them on the request. A failed pass stays due and is run again.
 */
export async function runLakeErasures(
  lake: LakeEraser,
  options: { limit?: number; lakeRecheckMs?: number } = {},
): Promise<void> {
  for (const request of await dueLakeErasures(Date.now(), options.limit ?? 20)) {
    await runLakePass(request, lake, options.lakeRecheckMs ?? LAKE_RECHECK_MS);
  }
}

async function runLakePass(request: PrivacyRequest, lake: LakeEraser, recheckMs: number) {
  const state = request.lakeErasure;
  if (!state) return;
  try {
    const outcome = await lake({ merchantId: request.merchantId, names: state.names });
    const next = state.passes + 1 < LAKE_PASSES ? new Date(Date.now() + recheckMs).toISOString() : undefined;
    await recordLakePass({ ...request, lakeErasure: state }, outcome.rows, next);
    logger.info('privacy lake pass', { requestId: request.requestId, pass: state.passes + 1, ...outcome });
  } catch (error) {
    logger.warn('privacy lake pass failed', { requestId: request.requestId, error });
    metrics.addMetric('PrivacyLakePassesFailed', MetricUnit.Count, 1);
  }
}

/**
 * One slice: the search for the subject's records goes on from where the last slice stopped, until
 * the deadline; its progress is recorded (which wakes the next slice in AWS). The slice that completes
 * the search erases or exports. A failure counts an attempt; after MAX_ATTEMPTS the request fails.
 */
async function runPrivacySlice(
  request: PrivacyRequest,
  limits: SliceLimits,
): Promise<PrivacyRequest | undefined> {
  try {
    const slice = await searchSubjectSlice(
      request.merchantId,
      parseIdentityIds(request.identities),
      request.scan ?? NEW_SUBJECT_SEARCH,
      request.found ?? {},
      limits,
    );
    const recorded = await recordPrivacySlice(request, slice, Date.now());
    // Not recorded: another run advanced the request meanwhile, and goes on from there.
    if (!recorded || !slice.done) return undefined;
    return await finishRequest(recorded, Date.now());
  } catch (error) {
    logger.warn('privacy slice failed', { requestId: request.requestId, error });
    if ((await countPrivacyAttempt(request)) < MAX_ATTEMPTS) return undefined;
    metrics.addMetric('PrivacyRequestsFailed', MetricUnit.Count, 1);
    const reason = `gave up after ${MAX_ATTEMPTS} attempts: ${(error as Error).message}`.slice(0, 500);
    await finishPrivacyRequest(
      request,
      { status: 'failed', reason },
      outcomeAudit(request, 'failed', Date.now()),
      Date.now(),
    );
    return { ...request, status: 'failed', reason };
  }
}

/** The subject's records are all found: what follows from them, erased or exported. */
async function finishRequest(request: PrivacyRequest, now: number): Promise<PrivacyRequest> {
  const records = await subjectRecords(request.merchantId, request.identities, request.found ?? {});
  const counts = countsOf(records);
  if (request.type === 'erase') {
    // Named before the records go: the lake's passes match its rows by the records' ids.
    const lakeErasure = {
      names: lakeNamesOf(request.identities, records),
      passes: 0,
      dueAt: new Date(now).toISOString(),
    };
    await eraseSubject(request.merchantId, records, now);
    const outcome = { status: 'done' as const, counts, lakeErasure };
    await finishPrivacyRequest(request, outcome, outcomeAudit(request, 'done', now), now);
    return { ...request, ...outcome };
  }
  const exportKey = exportObjectKey(request.merchantId, request.requestId);
  await writeExport(
    exportKey,
    exportDocument(
      {
        merchantId: request.merchantId,
        requestId: request.requestId,
        identities: request.identities,
        generatedAt: new Date(now).toISOString(),
      },
      recordsByKind(records),
    ),
  );
  const exportExpiresAt = new Date(now + EXPORT_LINK_SECONDS * 1000).toISOString();
  const outcome = { status: 'done' as const, counts, exportKey, exportExpiresAt };
  await finishPrivacyRequest(request, outcome, outcomeAudit(request, 'done', now), now);
  return { ...request, ...outcome };
}

const subjectRecords = (merchantId: string, identities: readonly string[], found: FoundKeys) =>
  findSubjectRecords(
    merchantId,
    parseIdentityIds(identities),
    (list) => storedNetworkKeys(merchantId, list),
    found,
  );

/**
 * The merchant's network contributions first (each withdrawal rebuilds the identity's reputation from
 * the other merchants' ledgers), then its own records.
 */
async function eraseSubject(merchantId: string, records: SubjectRecords, now: number): Promise<void> {
  const withdrawals = [
    ...records.networkLedgers.map((ledger) => ({ ledger, change: () => ({ causes: {} }) })),
    ...records.networkCauses.map(({ ledger, causes }) => ({
      ledger,
      change: (held: NetworkLedger) =>
        causes.reduce((left, cause) => withCause(left, cause, undefined, now), held),
    })),
  ];
  for (const { ledger, change } of withdrawals) {
    await applyContribution(
      {
        networkKey: String(ledger.networkKey),
        merchantId,
        identity: parseIdentityId(String(ledger.identity)),
        change,
      },
      now,
    );
  }
  await eraseSubjectRecords(records);
}

const outcomeAudit = (request: PrivacyRequest, status: 'done' | 'failed', now: number) =>
  auditPut(request.merchantId, {
    at: new Date(now).toISOString(),
    action: request.type === 'erase' ? 'privacy.erased' : 'privacy.exported',
    ...request.requestedBy,
    subject: `${request.type} ${request.requestId}`,
    detail: status,
  });

function recordsByKind(
  records: SubjectRecords,
): Record<PrivacyRecordKind, readonly Record<string, unknown>[]> {
  const { links, networkLedgers, networkCauses, listEntries, listEntryMentions, ...rest } = records;
  return {
    ...rest,
    links: links.map((link) => ({ ...link.key, attribute: link.attribute, fingerprint: link.fingerprint })),
    listEntries: [...listEntries, ...listEntryMentions],
    networkContributions: [...networkLedgers, ...networkCauses.map(({ ledger }) => ledger)],
  };
}

const countsOf = (records: SubjectRecords): PrivacyCounts =>
  Object.fromEntries(
    Object.entries(recordsByKind(records)).map(([kind, items]) => [kind, items.length]),
  ) as PrivacyCounts;

/** The request as GET answers it: the export's link is signed now (exportLink says for how long). */
export async function privacyRequestView(
  request: PrivacyRequest,
  now: number,
): Promise<PrivacyRequestStatus> {
  const link =
    request.exportKey && request.exportExpiresAt
      ? await exportLink(request.exportKey, Date.parse(request.exportExpiresAt), now)
      : undefined;
  return {
    requestId: request.requestId,
    type: request.type,
    status: request.status,
    identifiers: request.identities.length,
    identifierKinds: identifierKindCounts(request.identities),
    createdAt: request.createdAt,
    ...(request.finishedAt ? { finishedAt: request.finishedAt } : {}),
    ...(request.counts ? { counts: request.counts } : {}),
    ...(link ? { exportUrl: link, exportExpiresAt: request.exportExpiresAt } : {}),
    ...(request.reason ? { reason: request.reason } : {}),
    ...(request.progress ? { progress: request.progress } : {}),
  };
}

/** `{ email: 1, card: 2 }`: what the request named, by kind, from the digests it keeps. */
function identifierKindCounts(identities: readonly string[]): PrivacyRequestStatus['identifierKinds'] {
  const kinds: Record<string, number> = {};
  for (const { kind } of parseIdentityIds(identities)) kinds[kind] = (kinds[kind] ?? 0) + 1;
  return kinds;
}

/**
 * After a restore from a backup (docs/operations.md): every tombstone's erasure again, and every
 * offboarded merchant's deletion, so nothing a customer or a merchant had deleted comes back.
 * `fromTable` names the table the tombstones and receipts are read from when it is not the restored
 * one. Returns how many records each found again.
 */
export async function replayTombstones(by: AuditActor, now: number, fromTable?: string) {
  const erased: { requestId: string; found: number }[] = [];
  for (const tombstone of await listTombstones(fromTable)) {
    // The whole search at once: a restore replays few tombstones, out of any request's path.
    const { merchantId, identities } = tombstone;
    const search = await searchSubjectSlice(
      merchantId,
      parseIdentityIds(identities),
      NEW_SUBJECT_SEARCH,
      {},
      {
        deadline: Number.POSITIVE_INFINITY,
      },
    );
    const records = await subjectRecords(merchantId, identities, search.found);
    await eraseSubject(tombstone.merchantId, records, now);
    const found = Object.values(countsOf(records)).reduce((a, b) => a + b, 0);
    erased.push({ requestId: tombstone.requestId, found });
  }
  const offboarded: { merchantId: string; found: number }[] = [];
  for (const { offboardedMerchantId } of await listOffboarded(fromTable)) {
    await requestOffboarding(offboardedMerchantId, by, now);
    const receipt = await runOffboardingToEnd(offboardedMerchantId);
    offboarded.push({ merchantId: offboardedMerchantId, found: receipt.items.total });
  }
  return { erased, offboarded };
}
