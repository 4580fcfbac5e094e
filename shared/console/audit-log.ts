import type { ManagementUseCase } from '../http/management-handler.ts';
import { listAudit } from '../store/audit.ts';

/** GET /v1/audit: changes made through the console, newest first. */
export const listAuditLog: ManagementUseCase<'auditList'> = async ({ caller, query }) => {
  const page = await listAudit(caller.merchantId, query.cursor, query.limit ?? 50);
  return { body: { items: page.items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) } };
};
