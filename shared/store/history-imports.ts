import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { sha256Hex } from './canonical.ts';
import { documentClient, tableName } from './client.ts';
import { historyImportKeys } from './keys.ts';
import { TTL_ATTRIBUTE } from './table-definition.ts';

/**
 * Where a merchant's history import stands, written after every slice by whoever runs it (the
 * workflow's function, `admin import`) and read by `admin import status` and an operator. The
 * workflow's own state carries the same record from slice to slice; this item is its window.
 */
export interface ImportStatus {
  merchantId: string;
  /** The file: an S3 key (the workflow) or a local path (`admin import`). */
  file: string;
  /** Where it stands (shared/history-import/import-history.ts ImportProgress), checked by its reader. */
  progress: unknown;
  updatedAt: string;
  /** Why the import stopped, when it failed. */
  error?: string;
}

/** Kept a month after its last slice: as long as the imports bucket keeps the file. */
const RETENTION_SECONDS = 30 * 24 * 3600;

const statusKey = (merchantId: string, file: string) =>
  historyImportKeys.status(merchantId, sha256Hex(file).slice(0, 32));

export async function recordImportStatus(
  merchantId: string,
  file: string,
  progress: object,
  error?: string,
): Promise<void> {
  const now = Date.now();
  await documentClient.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...statusKey(merchantId, file),
        entity: 'historyImport',
        merchantId,
        file,
        progress: JSON.stringify(progress),
        ...(error !== undefined ? { error } : {}),
        updatedAt: new Date(now).toISOString(),
        [TTL_ATTRIBUTE]: Math.floor(now / 1000) + RETENTION_SECONDS,
      },
    }),
  );
}

export async function getImportStatus(merchantId: string, file: string): Promise<ImportStatus | undefined> {
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: statusKey(merchantId, file), ConsistentRead: true }),
  );
  if (!Item) return undefined;
  return {
    merchantId,
    file,
    progress: JSON.parse(String(Item.progress)),
    updatedAt: String(Item.updatedAt),
    ...(Item.error !== undefined ? { error: String(Item.error) } : {}),
  };
}
