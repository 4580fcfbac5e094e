import { identityDigests } from '../digests/identity-digests.ts';
import type { IdentityRef } from '../identity/identities.ts';
import { identityId, parseIdentityId, parseIdentityIds } from '../identity/identity-ids.ts';
import { newPrivacyRequestId } from '../ids.ts';
import { type NetworkLedger, withCause } from '../network/reputation.ts';
import { plural } from '../plural.ts';
import { exportDocument } from '../privacy/export-document.ts';
import { EXPORT_LINK_SECONDS, exportLink, exportObjectKey, writeExport } from '../privacy/exports-bucket.ts';
import { subjectIdentities } from '../privacy/subject.ts';
import type {
  PrivacyCounts,
  PrivacyRecordKind,
  PrivacyRequestStatus,
  PrivacyRequestType,
  PrivacySubject,
} from '../schemas/privacy.ts';
import { type AuditActor, auditPut } from '../store/audit.ts';
import { applyContribution } from '../store/network-contributions.ts';
import { storedNetworkKeys } from '../store/network-items.ts';
import {
  countPrivacyAttempt,
  createPrivacyRequest,
  finishPrivacyRequest,
  listOffboarded,
  listTombstones,
  type PrivacyRequest,
  pendingPrivacyRequests,
} from '../store/privacy-requests.ts';
import { eraseSubjectRecords } from '../store/subject-erasure.ts';
import { findSubjectRecords, type SubjectRecords } from '../store/subject-records.ts';
import { offboardMerchant } from './offboard-merchant.ts';

/**
 * Erase or export one customer's data at one merchant (docs/privacy.md). A request is accepted at
 * once, keeping only the digests of the identifiers it names, and run by the privacy worker: the
 * local poller, or in AWS the worker function on the table's stream. An erasure ends with a
 * tombstone that the restore runbook replays (replayTombstones).
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

/** A run that fails is tried again on the worker's next pass, this many times in all. */
const MAX_ATTEMPTS = 3;

/** One pass of the worker: every pending request, oldest first. Returns those it finished. */
export async function runPrivacyWorker(limit = 20): Promise<PrivacyRequest[]> {
  const finished: PrivacyRequest[] = [];
  for (const request of await pendingPrivacyRequests(limit)) {
    try {
      finished.push(await runPrivacyRequest(request, Date.now()));
    } catch (error) {
      if ((await countPrivacyAttempt(request)) < MAX_ATTEMPTS) continue;
      const reason = `gave up after ${MAX_ATTEMPTS} attempts: ${(error as Error).message}`.slice(0, 500);
      await finishPrivacyRequest(
        request,
        { status: 'failed', reason },
        outcomeAudit(request, 'failed', Date.now()),
        Date.now(),
      );
      finished.push({ ...request, status: 'failed', reason });
    }
  }
  return finished;
}

async function runPrivacyRequest(request: PrivacyRequest, now: number): Promise<PrivacyRequest> {
  const refs = parseIdentityIds(request.identities);
  const records = await subjectRecords(request.merchantId, refs);
  const counts = countsOf(records);
  if (request.type === 'erase') {
    await eraseSubject(request.merchantId, records, now);
    await finishPrivacyRequest(request, { status: 'done', counts }, outcomeAudit(request, 'done', now), now);
    return { ...request, status: 'done', counts };
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

const subjectRecords = (merchantId: string, refs: readonly IdentityRef[]) =>
  findSubjectRecords(merchantId, refs, (list) => storedNetworkKeys(merchantId, list));

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

/** The request as GET answers it: the export's link is signed now, valid until its expiry. */
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
    const refs = parseIdentityIds(tombstone.identities);
    const records = await subjectRecords(tombstone.merchantId, refs);
    await eraseSubject(tombstone.merchantId, records, now);
    const found = Object.values(countsOf(records)).reduce((a, b) => a + b, 0);
    erased.push({ requestId: tombstone.requestId, found });
  }
  const offboarded: { merchantId: string; found: number }[] = [];
  for (const { offboardedMerchantId } of await listOffboarded(fromTable)) {
    const receipt = await offboardMerchant(offboardedMerchantId, by, now);
    offboarded.push({ merchantId: offboardedMerchantId, found: receipt.items.total });
  }
  return { erased, offboarded };
}
