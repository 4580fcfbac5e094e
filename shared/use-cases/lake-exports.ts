import { newLakeExportId } from '../ids.ts';
import type { LakeExportWriter } from '../lake/lake-export.ts';
import { plural } from '../plural.ts';
import { EXPORT_LINK_SECONDS, exportLink } from '../privacy/exports-bucket.ts';
import {
  LAKE_EXPORT_KINDS,
  type LakeExportKind,
  type LakeExportRequest,
  type LakeExportStatus,
} from '../schemas/lake-export.ts';
import { type AuditActor, auditPut } from '../store/audit.ts';
import {
  createLakeExport,
  finishLakeExport,
  getLakeExport,
  type LakeExport,
  type LakeExportOutcome,
  pendingLakeExports,
} from '../store/lake-exports.ts';

/**
 * A merchant's bulk export of its decided events and feedback over a range of days (docs/lake.md,
 * Exports). Accepted at once and audited; then each kind runs as one lake query writing its files
 * (a step of the export state machine in AWS, the local runner here), and the outcome is recorded
 * with its audit entry. The files' links are signed when the export is read.
 */
export async function requestLakeExport(
  merchantId: string,
  actor: AuditActor,
  request: LakeExportRequest,
  now: number,
): Promise<LakeExport> {
  const record: LakeExport = {
    merchantId,
    exportId: newLakeExportId(),
    status: 'pending',
    from: request.from,
    to: request.to,
    format: request.format,
    kinds: request.kinds ?? [...LAKE_EXPORT_KINDS],
    requestedBy: { keyId: actor.keyId, keyName: actor.keyName },
    createdAt: new Date(now).toISOString(),
  };
  await createLakeExport(
    record,
    auditPut(merchantId, {
      at: record.createdAt,
      action: 'export.requested',
      ...record.requestedBy,
      subject: record.exportId,
      detail: `${record.from} to ${record.to}, ${record.format}, ${plural(record.kinds.length, 'kind')}`,
    }),
    now,
  );
  return record;
}

/** One kind's files (a step: retried on its own in AWS). */
export async function exportKind(
  merchantId: string,
  exportId: string,
  kind: LakeExportKind,
  write: LakeExportWriter,
): Promise<{ kind: LakeExportKind; keys: string[] }> {
  const record = await getLakeExport(merchantId, exportId);
  if (!record) throw new Error(`no export ${exportId} at ${merchantId}`);
  return { kind, keys: await write(record, kind) };
}

/** The outcome: every kind's files, or why it failed. Recorded once, with its audit entry. */
export async function recordLakeExportOutcome(
  record: Pick<LakeExport, 'merchantId' | 'exportId' | 'requestedBy'>,
  result: { files: { kind: LakeExportKind; keys: string[] }[] } | { reason: string },
  now: number,
): Promise<LakeExportOutcome> {
  const outcome: LakeExportOutcome =
    'files' in result
      ? {
          status: 'done',
          files: result.files.flatMap(({ kind, keys }) => keys.map((key) => ({ kind, key }))),
          expiresAt: new Date(now + EXPORT_LINK_SECONDS * 1000).toISOString(),
        }
      : { status: 'failed', reason: result.reason.slice(0, 500) };
  await finishLakeExport(
    record,
    outcome,
    auditPut(record.merchantId, {
      at: new Date(now).toISOString(),
      action: outcome.status === 'done' ? 'export.done' : 'export.failed',
      ...record.requestedBy,
      subject: record.exportId,
      detail: outcome.files ? plural(outcome.files.length, 'file') : (outcome.reason ?? ''),
    }),
    now,
  );
  return outcome;
}

/** Runs one export whole, kind after kind: the local runner and the admin CLI. */
export async function runLakeExport(record: LakeExport, write: LakeExportWriter): Promise<LakeExportOutcome> {
  try {
    const files = [];
    for (const kind of record.kinds)
      files.push(await exportKind(record.merchantId, record.exportId, kind, write));
    return await recordLakeExportOutcome(record, { files }, Date.now());
  } catch (error) {
    return recordLakeExportOutcome(record, { reason: (error as Error).message }, Date.now());
  }
}

/** Every pending export, oldest first (the local runner's pass). */
export async function runPendingLakeExports(write: LakeExportWriter, limit = 10) {
  const finished: (LakeExport & LakeExportOutcome)[] = [];
  for (const record of await pendingLakeExports(limit))
    finished.push({ ...record, ...(await runLakeExport(record, write)) });
  return finished;
}

/** The export as GET answers it: each file's link signed now (exportLink says for how long). */
export async function lakeExportView(record: LakeExport, now: number): Promise<LakeExportStatus> {
  const expiresAt = record.expiresAt ? Date.parse(record.expiresAt) : undefined;
  const files = [];
  for (const file of expiresAt && expiresAt > now ? (record.files ?? []) : []) {
    const url = await exportLink(file.key, expiresAt!, now);
    if (url) files.push({ kind: file.kind, url });
  }
  return {
    exportId: record.exportId,
    status: record.status,
    from: record.from,
    to: record.to,
    format: record.format,
    kinds: record.kinds,
    createdAt: record.createdAt,
    ...(record.finishedAt ? { finishedAt: record.finishedAt } : {}),
    ...(record.status === 'done' ? { files, expiresAt: record.expiresAt } : {}),
    ...(record.reason ? { reason: record.reason } : {}),
  };
}
