import { randomBase62 } from '../ids.ts';
import { retainUntil } from '../retention.ts';
import type { AuditEntry } from '../schemas/console.ts';
import { keyString } from './batch-get.ts';
import { tableName } from './client.ts';
import { freeTextPut, readFreeText } from './free-text.ts';
import { consoleKeys, keyOfItem, type TableKey } from './keys.ts';
import { type Page, queryPage, wholePartition } from './pages.ts';
import { PARTITION_KEY, TTL_ATTRIBUTE } from './table-definition.ts';
import type { TransactItem, TransactItems } from './transact.ts';

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
  return auditItemPut(consoleKeys.auditEntry(merchantId, entry.at, auditId), merchantId, entry, false);
}

/**
 * An entry quoting free text someone wrote (a reviewer's note): the note is kept apart for its own
 * shorter retention (free-text.ts) and shown after the entry's `detail` while it is kept.
 */
export function auditPutsWithNote(
  merchantId: string,
  entry: AuditEntry,
  note: string | undefined,
): TransactItems {
  if (!note) return [auditPut(merchantId, entry)];
  const key = consoleKeys.auditEntry(merchantId, entry.at, randomBase62(8));
  return [auditItemPut(key, merchantId, entry, true), freeTextPut(key, { note }, Date.parse(entry.at))];
}

function auditItemPut(key: TableKey, merchantId: string, entry: AuditEntry, hasNote: boolean): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: {
        ...key,
        entity: 'audit',
        merchantId,
        ...entry,
        // Only entries with a note cost a read of free text when listed.
        ...(hasNote ? { hasNote } : {}),
        [TTL_ATTRIBUTE]: retainUntil('audit', Date.parse(entry.at)),
      },
    },
  };
}

/** The merchant's audit log, newest first. */
export async function listAudit(
  merchantId: string,
  cursor: string | undefined,
  limit: number,
): Promise<Page<AuditEntry>> {
  const partition = consoleKeys.auditEntry(merchantId, '', '')[PARTITION_KEY];
  const page = await queryPage(
    {
      ...wholePartition(partition),
      oldestFirst: false,
      cursor,
      limit,
    },
    (item) => ({
      key: keyOfItem(item),
      hasNote: item.hasNote === true,
      entry: {
        at: item.at as string,
        action: item.action as AuditEntry['action'],
        keyId: item.keyId as string,
        keyName: item.keyName as string,
        subject: item.subject as string,
        detail: item.detail as string,
      } satisfies AuditEntry,
    }),
  );
  const notes = await readFreeText(page.items.filter((i) => i.hasNote).map((i) => i.key));
  const items = page.items.map(({ key, entry }) => {
    const note = notes.get(keyString(key))?.note;
    return typeof note === 'string' ? { ...entry, detail: `${entry.detail}: ${note}` } : entry;
  });
  return { items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
}
