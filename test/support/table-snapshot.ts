import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, dynamoDbClient, tableName } from '../../shared/store/client.ts';
import { ensureTable } from '../../shared/store/ensure-table.ts';

/**
 * Whole-table snapshots, to prove a refused or failed request changed nothing. Suites that take
 * them run on a table of their own (call `ownTableName` in vi.hoisted, `createOwnTable` in
 * beforeAll), so a scan stays small and no other suite writes meanwhile.
 */
export function ownTableName(suite: string): string {
  return `${suite}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

export function createOwnTable(): Promise<void> {
  return ensureTable(dynamoDbClient, tableName);
}

/**
 * Every item by key, as canonical text. The rate-limit buckets are left out: every request takes a
 * token by design (that is the limiter doing its job, not the request's effect).
 */
export async function tableSnapshot(): Promise<Map<string, string>> {
  const items = new Map<string, string>();
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new ScanCommand({ TableName: tableName, ConsistentRead: true, ExclusiveStartKey: start }),
    );
    for (const item of page.Items ?? []) {
      if (String(item.PK).endsWith('#RATELIMIT')) continue;
      items.set(`${item.PK}|${item.SK}`, stableText(item));
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

/** Keys whose items differ between two snapshots (added, removed or changed). */
export function changedKeys(before: Map<string, string>, after: Map<string, string>): string[] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys].filter((key) => before.get(key) !== after.get(key)).sort();
}

/** JSON with sorted keys, and DynamoDB sets as sorted arrays (JSON.stringify drops their members). */
function stableText(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Set) return [...v].map(String).sort();
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return v;
  });
}
