import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { forEachConcurrently } from '../concurrency.ts';
import { documentClient, tableName } from './client.ts';
import { keyOfItem, type TableKey } from './keys.ts';
import type { LinkToRemove, SubjectRecords } from './subject-records.ts';

/**
 * Erases what findSubjectRecords found. Every step is safe to repeat and the events, from which the
 * rest is found, go last: an erasure cut off half-way finds the rest again when it runs once more.
 * The network ledgers are not here: their withdrawal rebuilds reputation (network-contributions.ts).
 */
const WRITE_CONCURRENCY = 16;

/** What an audit entry's free text becomes: the change and who made it stay, the words go. */
const ERASED_TEXT = 'erased on request';

export async function eraseSubjectRecords(records: SubjectRecords): Promise<void> {
  await forEachConcurrently(records.links, WRITE_CONCURRENCY, removeLink);
  await forEachConcurrently(records.auditEntries, WRITE_CONCURRENCY, (entry) =>
    redactAudit(keyOfItem(entry)),
  );
  await forEachConcurrently(records.listEntryMentions, WRITE_CONCURRENCY, (entry) =>
    redactListEntry(keyOfItem(entry)),
  );
  const deleted = [
    ...records.webhookItems,
    ...records.listEntries,
    ...records.reviews,
    ...records.sideItems,
    ...records.dispositions,
    ...records.disputes,
    ...records.identities,
    ...records.events,
  ];
  await forEachConcurrently(deleted, WRITE_CONCURRENCY, (item) => deleteItem(keyOfItem(item)));
}

async function deleteItem(key: TableKey): Promise<void> {
  await documentClient.send(new DeleteCommand({ TableName: tableName, Key: key }));
}

/** Takes one fingerprint out of a link set; the item must still exist (an update never re-creates it). */
async function removeLink(link: LinkToRemove): Promise<void> {
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: link.key,
        UpdateExpression: 'DELETE #set :member',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: { '#set': link.attribute },
        ExpressionAttributeValues: { ':member': new Set([link.fingerprint]) },
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
}

const redactAudit = (key: TableKey) => redact(key, ['subject', 'detail']);
/** The entry keeps acting on its own identity; only the words naming the erased records go. */
const redactListEntry = (key: TableKey) =>
  redact(key, ['cause', 'concerns', 'identity', 'reason', 'note.ref']);

const pathOf = (path: string, i: number) =>
  path
    .split('.')
    .map((_, j) => `#a${i}_${j}`)
    .join('.');

/** Sets text attributes to ERASED_TEXT on an item that still exists. */
async function redact(key: TableKey, attributes: readonly string[]): Promise<void> {
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: `SET ${attributes.map((path, i) => `${pathOf(path, i)} = :erased`).join(', ')}`,
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: Object.fromEntries(
          attributes.flatMap((path, i) => path.split('.').map((name, j) => [`#a${i}_${j}`, name])),
        ),
        ExpressionAttributeValues: { ':erased': ERASED_TEXT },
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
}
