import { notFound } from '../errors.ts';
import type { ManagementUseCase } from '../http/management-handler.ts';
import { getLakeExport } from '../store/lake-exports.ts';
import { lakeExportView, requestLakeExport } from '../use-cases/lake-exports.ts';

/** POST /v1/exports: accepted at once (202), run by the export job. */
export const createLakeExport: ManagementUseCase<'lakeExportCreate'> = async ({ caller, body }) => {
  const now = Date.now();
  const record = await requestLakeExport(
    caller.merchantId,
    { keyId: caller.keyId, keyName: caller.keyName },
    body,
    now,
  );
  return {
    body: await lakeExportView(record, now),
    headers: { Location: `/v1/exports/${record.exportId}` },
  };
};

/** GET /v1/exports/{export-id} */
export const showLakeExport: ManagementUseCase<'lakeExportShow'> = async ({ caller, pathParameters }) => {
  const record = await getLakeExport(caller.merchantId, pathParameters['export-id'] ?? '');
  if (!record) throw notFound('No export with this id.');
  return { body: await lakeExportView(record, Date.now()) };
};
