import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from './client.ts';
import type { TableKey } from './keys.ts';
import { GSI1, PARTITION_KEY, SORT_KEY } from './table-definition.ts';

/**
 * A filtered search of many partitions, in time-bounded slices that resume (the privacy worker's,
 * shared/store/subject-records.ts). Each listing is one partition (of the table or GSI1) read with a
 * filter: an `OR` of contains() over the listing's values on its paths. A slice reads listings, 16 at
 * once, page by page until its deadline; it ends with a cursor (the listings started, where each
 * open one stopped) from which the next slice goes on, and the keys of the items it found.
 */
export interface Listing {
  /** What the items found are (the caller's name for them). */
  kind: string;
  pk: string;
  index: 'table' | 'gsi1';
  paths: readonly string[];
  values: readonly string[];
  /** On the table: only sort keys beginning so. */
  sortKeyPrefix?: string;
}

/** Where a search stands: listings before `next` are started, `open` ones not finished. */
export interface ListingCursor {
  next: number;
  open: { listing: number; startKey: Record<string, unknown> }[];
}

export const NEW_LISTING_CURSOR: ListingCursor = { next: 0, open: [] };

export interface SliceLimits {
  /** When the slice stops taking pages (epoch ms). */
  deadline: number;
  /** Items a query reads per page (DynamoDB's 1 MB page when unset). */
  pageItems?: number;
}

export interface FoundItem {
  kind: string;
  key: TableKey;
}

/** Queries in flight at once. */
const QUERY_CONCURRENCY = 16;
/** Values per filter expression: DynamoDB takes up to 4 KB of expression. */
const FILTER_VALUES = 40;

const chunks = <T>(values: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(values.length / size) }, (_, i) => values.slice(i * size, i * size + size));

/** The listings of partitions filtered on values, a listing per partition and chunk of values. */
export function listingsOf(
  partitions: readonly string[],
  listing: Omit<Listing, 'pk' | 'values'>,
  values: readonly string[],
): Listing[] {
  return partitions.flatMap((pk) =>
    chunks(values, FILTER_VALUES).map((chunk) => ({ ...listing, pk, values: chunk })),
  );
}

/**
 * One slice of the search: each query lane always finishes the page it started, so every slice
 * makes progress however short it is.
 */
export async function searchListings(
  listings: readonly Listing[],
  cursor: ListingCursor,
  { deadline, pageItems }: SliceLimits,
): Promise<{ cursor: ListingCursor; found: FoundItem[]; listingsRead: number; done: boolean }> {
  const resumed = [...cursor.open];
  let next = cursor.next;
  const stopped: ListingCursor['open'] = [];
  const found: FoundItem[] = [];
  const lane = async () => {
    for (;;) {
      const taken =
        resumed.shift() ?? (next < listings.length ? { listing: next++, startKey: undefined } : undefined);
      if (!taken) return;
      const listing = listings[taken.listing]!;
      let startKey: Record<string, unknown> | undefined = taken.startKey;
      do {
        const page = await readPage(listing, startKey, pageItems);
        found.push(...page.keys.map((key) => ({ kind: listing.kind, key })));
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
    listingsRead: next - open.length,
    done: next >= listings.length && open.length === 0,
  };
}

async function readPage(
  listing: Listing,
  startKey: Record<string, unknown> | undefined,
  pageItems: number | undefined,
): Promise<{ keys: TableKey[]; startKey?: Record<string, unknown> }> {
  const filters = listing.paths.map((path, i) => containsAny(path, listing.values, `f${i}_`));
  const onTable = listing.index === 'table';
  const page = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      ...(onTable ? {} : { IndexName: GSI1.name }),
      KeyConditionExpression: `#pk = :pk${listing.sortKeyPrefix ? ' AND begins_with(#sk, :prefix)' : ''}`,
      FilterExpression: filters.map((f) => `(${f.expression})`).join(' OR '),
      ExpressionAttributeNames: Object.assign(
        { '#pk': onTable ? PARTITION_KEY : GSI1.partitionKey, '#key': PARTITION_KEY, '#sort': SORT_KEY },
        listing.sortKeyPrefix ? { '#sk': SORT_KEY } : {},
        ...filters.map((f) => f.names),
      ),
      ExpressionAttributeValues: Object.assign(
        { ':pk': listing.pk },
        listing.sortKeyPrefix ? { ':prefix': listing.sortKeyPrefix } : {},
        ...filters.map((f) => f.values),
      ),
      // Keys only: the slice that finishes reads the items themselves, as they are then.
      ProjectionExpression: '#key, #sort',
      ExclusiveStartKey: startKey,
      Limit: pageItems,
    }),
  );
  return {
    keys: (page.Items ?? []).map((item) => ({ PK: String(item.PK), SK: String(item.SK) })),
    ...(page.LastEvaluatedKey ? { startKey: page.LastEvaluatedKey } : {}),
  };
}

/** An `OR` of `contains(path, :v)` over values, with its names and values. */
function containsAny(path: string, values: readonly string[], prefix: string) {
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
