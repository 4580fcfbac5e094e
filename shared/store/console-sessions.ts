import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { randomBase62 } from '../ids.ts';
import { sha256Hex } from './canonical.ts';
import { documentClient, tableName } from './client.ts';
import { consoleKeys } from './keys.ts';
import { TTL_ATTRIBUTE } from './table-definition.ts';

/**
 * Console sessions: a random token the browser keeps in an HttpOnly cookie, stored only as its
 * SHA-256 digest with the console key's hash, so revoking the key ends every session made with it
 * (authentication re-checks the key on each request). Expired items are refused at once and removed
 * by the table's TTL later.
 */
export const SESSION_TTL_MS = 12 * 3_600_000;
export const SESSION_TOKEN_LENGTH = 43;

export interface ConsoleSession {
  keyHash: string;
  keyId: string;
  merchantId: string;
  expiresAt: number;
}

export async function createConsoleSession(
  key: { keyHash: string; keyId: string; merchantId: string },
  now: number,
): Promise<{ token: string; session: ConsoleSession }> {
  const token = randomBase62(SESSION_TOKEN_LENGTH);
  // Whole seconds: the table's TTL attribute holds epoch seconds, and the expiry is read back from it.
  const expiresAt = Math.ceil((now + SESSION_TTL_MS) / 1000) * 1000;
  const session: ConsoleSession = { ...key, expiresAt };
  await documentClient.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...consoleKeys.consoleSession(sha256Hex(token)),
        entity: 'consoleSession',
        keyHash: key.keyHash,
        keyId: key.keyId,
        merchantId: key.merchantId,
        createdAt: new Date(now).toISOString(),
        [TTL_ATTRIBUTE]: expiresAt / 1000,
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
  return { token, session };
}

/** The live session of a token, or undefined when unknown, ended or expired. */
export async function findConsoleSession(token: string, now: number): Promise<ConsoleSession | undefined> {
  const { Item } = await documentClient.send(
    new GetCommand({
      TableName: tableName,
      Key: consoleKeys.consoleSession(sha256Hex(token)),
      ConsistentRead: true,
    }),
  );
  const expiresAt = Number(Item?.[TTL_ATTRIBUTE]) * 1000;
  if (!Item || !(expiresAt > now)) return undefined;
  return {
    keyHash: Item.keyHash as string,
    keyId: Item.keyId as string,
    merchantId: Item.merchantId as string,
    expiresAt,
  };
}

export async function endConsoleSession(token: string): Promise<void> {
  await documentClient.send(
    new DeleteCommand({ TableName: tableName, Key: consoleKeys.consoleSession(sha256Hex(token)) }),
  );
}
