import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { EVENT_TYPES } from '../contract/endpoints.ts';
import { documentClient, tableName } from './client.ts';
import { gsi1, type TableKey } from './keys.ts';
import { GSI1 } from './table-definition.ts';

/**
 * Finding a privacy subject's decided events, in slices that resume (docs/privacy.md). Nothing
 * indexes events by identity, so the subject's events are found in the merchant's event listing
 * (GSI1: every event type and shard) filtered on their `identities`. At a large merchant that
 * listing is most of the request's work, so it is read in time-bounded slices: each slice ends with
 * a cursor (which listings are read, where the open ones stopped) that the next slice starts from.
 */

/** Queries in flight at once: the listing has 64 shards per event type. */
const QUERY_CONCURRENCY = 16;
/** Values per filter expression: DynamoDB takes up to 4 KB of expression. */
export const FILTER_VALUES = 40;

/** Where a scan stands: listings (partition x chunk of values) before `next` are started. */
export interface EventScanCursor {
  next: number;
  /** Listings started and not finished, with the key their next page starts from. */
  open: { listing: number; startKey: Record<string, unknown> }[];
}

export const NEW_EVENT_SCAN: EventScanCursor = { next: 0, open: [] };

export interface EventScanSlice {
  cursor: EventScanCursor;
  /** Keys of the events found in this slice. */
  found: TableKey[];
  listings: number;
  /** Listings read to the end, this slice's included. */
  listingsRead: number;
  done: boolean;
}

export const chunks = <T>(values: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(values.length / size) }, (_, i) => values.slice(i * size, i * size + size));

/** Every listing to read: each event partition with each chunk of the subject's identity ids. */
function listingsOf(merchantId: string, ids: readonly string[]) {
  const partitions = EVENT_TYPES.flatMap((type) => gsi1.eventPartitions(merchantId, type));
  return partitions.flatMap((pk) => chunks(ids, FILTER_VALUES).map((chunk) => ({ pk, chunk })));
}

export interface SliceLimits {
  /** When the slice stops taking pages (epoch ms). */
  deadline: number;
  /** Items a query reads per page (DynamoDB's 1 MB page when unset). */
  pageItems?: number;
}

/**
 * One slice: reads from `cursor` until the deadline has passed, each query lane always finishing
 * the page it started, so every slice makes progress however short it is.
 */
export async function scanSubjectEvents(
  merchantId: string,
  ids: readonly string[],
  cursor: EventScanCursor,
  { deadline, pageItems }: SliceLimits,
): Promise<EventScanSlice> {
  const listings = listingsOf(merchantId, ids);
  const resumed = [...cursor.open];
  let next = cursor.next;
  const stopped: EventScanCursor['open'] = [];
  const found: TableKey[] = [];
  const lane = async () => {
    for (;;) {
      const taken =
        resumed.shift() ?? (next < listings.length ? { listing: next++, startKey: undefined } : undefined);
      if (!taken) return;
      let startKey: Record<string, unknown> | undefined = taken.startKey;
      do {
        const page = await readPage(listings[taken.listing]!, startKey, pageItems);
        found.push(...page.found);
        startKey = page.startKey;
        if (startKey && Date.now() >= deadline) {
          stopped.push({ listing: taken.listing, startKey });
          return;
        }
      } while (startKey);
      if (Date.now() >= deadline) return;
    }
  };
  await Promise.all(Array.from({ length: QUERY_CONCURRENCY }, lane));
  const open = [...stopped, ...resumed].sort((a, b) => a.listing - b.listing);
  return {
    cursor: { next, open },
    found,
    listings: listings.length,
    listingsRead: next - open.length,
    done: next >= listings.length && open.length === 0,
  };
}

async function readPage(
  listing: { pk: string; chunk: readonly string[] },
  startKey: Record<string, unknown> | undefined,
  pageItems: number | undefined,
): Promise<{ found: TableKey[]; startKey?: Record<string, unknown> }> {
  const filter = containsAny('identities', listing.chunk, 'f');
  const page = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: GSI1.name,
      KeyConditionExpression: '#pk = :pk',
      FilterExpression: filter.expression,
      ExpressionAttributeNames: { '#pk': GSI1.partitionKey, ...filter.names },
      ExpressionAttributeValues: { ':pk': listing.pk, ...filter.values },
      // Keys only: the slice that finishes reads the events themselves, as they are then.
      ProjectionExpression: 'PK, SK',
      ExclusiveStartKey: startKey,
      Limit: pageItems,
    }),
  );
  return {
    found: (page.Items ?? []).map((item) => ({ PK: String(item.PK), SK: String(item.SK) })),
    ...(page.LastEvaluatedKey ? { startKey: page.LastEvaluatedKey } : {}),
  };
}

/** An `OR` of `contains(path, :v)` over values, with its names and values. */
export function containsAny(path: string, values: readonly string[], prefix: string) {
  const names: Record<string, string> = {};
  const parts = path.split('.').map((part, i) => {
    names[`#${prefix}${i}`] = part;
    return `#${prefix}${i}`;
  });
  const attribute = parts.join('.');
  const expressionValues: Record<string, string> = {};
  const clauses = values.map((value, i) => {
    expressionValues[`:${prefix}${i}`] = value;
    return `contains(${attribute}, :${prefix}${i})`;
  });
  return { expression: clauses.join(' OR '), names, values: expressionValues };
}
