import { randomBase62 } from '../ids.ts';
import { retainUntil } from '../retention.ts';
import type { AuditEntry } from '../schemas/console.ts';
import { tableName } from './client.ts';
import { consoleKeys } from './keys.ts';
import { type Page, queryPage, wholePartition } from './pages.ts';
import { PARTITION_KEY, TTL_ATTRIBUTE } from './table-definition.ts';
import type { TransactItem } from './transact.ts';

/**
 * The audit log: one item per change made through the console, written in the change's own
 * transaction, so a change is never recorded without its entry (or the other way round).
 */

/** Who made a change, as the audit log names them: a console key, the admin CLI, a feedback rule. */
export interface AuditActor {
  keyId: string;
  keyName: string;
}

/**
 * `auditId` names the entry among those of the same millisecond: random by default; a change that
 * must write the same items when replayed (an imported dispute's list entries) derives it.
 */
export function auditPut(merchantId: string, entry: AuditEntry, auditId = randomBase62(8)): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: {
        ...consoleKeys.auditEntry(merchantId, entry.at, auditId),
        entity: 'audit',
        merchantId,
        ...entry,
        [TTL_ATTRIBUTE]: retainUntil('audit', Date.parse(entry.at)),
      },
    },
  };
}

/** The merchant's audit log, newest first. */
export function listAudit(
  merchantId: string,
  cursor: string | undefined,
  limit: number,
): Promise<Page<AuditEntry>> {
  const partition = consoleKeys.auditEntry(merchantId, '', '')[PARTITION_KEY];
  return queryPage(
    {
      ...wholePartition(partition),
      oldestFirst: false,
      cursor,
      limit,
    },
    (item): AuditEntry => ({
      at: item.at as string,
      action: item.action as AuditEntry['action'],
      keyId: item.keyId as string,
      keyName: item.keyName as string,
      subject: item.subject as string,
      detail: item.detail as string,
    }),
  );
}
