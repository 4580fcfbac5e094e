import { ENDPOINTS, type EndpointName } from '../shared/contract/endpoints.ts';
import { lakeExportKeys, overviewKeys } from '../shared/store/keys.ts';
import { GSI1 } from '../shared/store/table-definition.ts';

/**
 * What each function may do to the table: the DynamoDB IAM actions its code sends, and nothing
 * else. One entry per endpoint (plus the 404/405 fallback); lib/api-function.ts turns an entry into
 * one IAM statement scoped to this table (and to an index only when the entry names it).
 *
 * DynamoDB has no IAM action for TransactWriteItems: each item in a transaction is authorised as
 * the single-item action it performs (Put -> PutItem, Update -> UpdateItem, ConditionCheck ->
 * ConditionCheckItem, Delete -> DeleteItem). Likewise BatchGetItem needs dynamodb:BatchGetItem.
 *
 * When a use case starts sending a new command, add its action here: test/infra.test.ts derives
 * each function's actions from its bundled code and fails until this table matches.
 */
export type TableAction =
  | 'dynamodb:GetItem'
  | 'dynamodb:BatchGetItem'
  | 'dynamodb:Query'
  | 'dynamodb:PutItem'
  | 'dynamodb:UpdateItem'
  | 'dynamodb:DeleteItem'
  | 'dynamodb:ConditionCheckItem'
  | 'dynamodb:Scan';

export interface TableAccess {
  /** Actions on the table's items. */
  actions: readonly TableAction[];
  /** Global secondary indexes the function queries (their names); only the training job does. */
  queriedIndexes: readonly string[];
  /** When set, only items whose partition key matches one of these patterns (`*` a wildcard). */
  leadingKeys?: readonly string[];
}

/** A function that is not one of the registered event endpoints. */
export type AuxiliaryFunction = 'fallback' | 'openapi' | 'console' | 'training' | 'learningItems';

/**
 * Every request authenticates first: GetItem on the API-key item, then GetItem on the merchant
 * profile (shared/auth/authenticate.ts -> shared/store/merchants.ts findApiKeyByHash, getMerchant).
 */
const AUTHENTICATE: readonly TableAction[] = ['dynamodb:GetItem'];

/**
 * A recorded event: one BatchGetItem for the decision context (workflow, identity history, the
 * use case's own records; shared/store/decision-context.ts, batch-get.ts), then one
 * TransactWriteItems (shared/store/transact.ts) holding the event's record (Put, conditional on
 * absence or version) and every counter it moves (Update; shared/store/identity-history.ts).
 */
const RECORD_EVENT: readonly TableAction[] = [
  'dynamodb:BatchGetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
];

/**
 * Feedback (a dispute, a disposition) takes the list entries its counterpart put on the block and
 * watch lists off in its own transaction (Delete; shared/use-cases/list-feedback.ts).
 */
const FEEDBACK_LISTS: readonly TableAction[] = ['dynamodb:DeleteItem'];

const access = (...groups: (readonly TableAction[])[]): TableAccess => ({
  actions: [...new Set(groups.flat())].sort(),
  queriedIndexes: [],
});

/**
 * Derived from what each handler's bundle sends (the infra test re-derives it from the bundled
 * code and fails on any difference). Every registered endpoint records one event: the use cases
 * (shared/use-cases/) read their context with one BatchGetItem, write with one transaction of Puts
 * and counter Updates, and the status-only re-sends of orders and returns read or update one item.
 * No event function queries GSI1, only the feedback endpoints delete (list entries), and no
 * transaction uses ConditionCheck today. A new endpoint gets this access without an edit here.
 */
export const TABLE_ACCESS: Readonly<Record<EndpointName | AuxiliaryFunction, TableAccess>> = {
  ...(Object.fromEntries(ENDPOINTS.map((name) => [name, access(AUTHENTICATE, RECORD_EVENT)])) as Record<
    EndpointName,
    TableAccess
  >),
  disposition: access(AUTHENTICATE, RECORD_EVENT, FEEDBACK_LISTS),
  dispute: access(AUTHENTICATE, RECORD_EVENT, FEEDBACK_LISTS),
  // functions/fallback.ts only authenticates, then answers 404/405.
  fallback: access(AUTHENTICATE),
  // functions/openapi.ts answers with the committed document and reads nothing.
  openapi: access(),
  // functions/console.ts, the management API: reads records and identity counters (GetItem,
  // BatchGetItem), lists reviews and decided events on GSI1 and versions and the audit log on the
  // table (Query), records what the console changes through the event use cases (Put, Update) and
  // ends sessions (DeleteItem).
  console: {
    ...access(AUTHENTICATE, RECORD_EVENT, ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:DeleteItem']),
    queriedIndexes: [GSI1.name],
  },
  // functions/learning-fit.ts (lib/learning-stack.ts): reads the profile, workflow, model pointers,
  // a model version and the trade-off histogram (GetItem), nothing of the merchant's events (the set
  // comes from the lake); writes the histogram, the new version and the pointers (PutItem) and the
  // good-customer guard measured after training (UpdateItem).
  /** The learning run's item listing: merchants (GSI1) and the one asked for. */
  learningItems: {
    actions: ['dynamodb:GetItem', 'dynamodb:Query'],
    queriedIndexes: [GSI1.name],
  },
  training: {
    actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
    queriedIndexes: [],
  },
};

/**
 * The webhook worker (functions/webhook-worker.ts): reads an endpoint and a delivery (GetItem), puts
 * the deliveries of an outbox item and takes it off its queue in one transaction (PutItem,
 * UpdateItem), and records attempts and endpoint health (UpdateItem). It reads no index: its work
 * arrives from the stream and the retry queue.
 */
export const WEBHOOK_WORKER_ACCESS: TableAccess = {
  ...access([
    'dynamodb:GetItem',
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:Query',
    'dynamodb:DeleteItem',
  ]),
  // The network's contributions: an identity's partition (Query), its reputation and ledger rebuilt
  // (Put, Delete), a leaving member's ledger entries listed on GSI1 (shared/use-cases/network-worker.ts).
  queriedIndexes: [GSI1.name],
};

/**
 * The privacy worker (functions/privacy-worker.ts, lib/privacy-stack.ts): reads its request
 * (GetItem), searches the merchant's event listing, disputes and list entries on GSI1 and the audit
 * and webhook partitions on the table (Query), reads the records it erases or exports (BatchGetItem),
 * records each slice and counts attempts (UpdateItem), deletes records, redacts audit and list text
 * and withdraws network contributions (DeleteItem, PutItem, UpdateItem), and ends the request with
 * its audit entry and tombstone in one transaction (UpdateItem, PutItem). Offboarding's slices find
 * every item of the merchant by a parallel Scan (Scan) and delete them (DeleteItem).
 */
export const PRIVACY_WORKER_ACCESS: TableAccess = {
  ...access([
    'dynamodb:BatchGetItem',
    'dynamodb:DeleteItem',
    'dynamodb:GetItem',
    'dynamodb:PutItem',
    'dynamodb:Query',
    'dynamodb:Scan',
    'dynamodb:UpdateItem',
  ]),
  queriedIndexes: [GSI1.name],
};

/**
 * The dispositions upload worker (functions/dispositions-upload-worker.ts): reads the upload item
 * (GetItem) and its chunks (Query on the table, not an index), counts its runs and each recorded
 * chunk (UpdateItem), and records each return through the disposition use case (RECORD_EVENT).
 */
export const UPLOAD_WORKER_ACCESS: TableAccess = access(RECORD_EVENT, FEEDBACK_LISTS, [
  'dynamodb:GetItem',
  'dynamodb:Query',
  'dynamodb:UpdateItem',
]);

/**
 * The history import job (functions/history-import.ts, lib/import-job.ts): reads the merchant's
 * profile (GetItem), then records every event through the event use cases (RECORD_EVENT; an
 * order's or return's status-only re-send reads and updates one item).
 */
export const IMPORT_JOB_ACCESS: TableAccess = access(RECORD_EVENT, FEEDBACK_LISTS, ['dynamodb:GetItem']);

/**
 * The overview feed (functions/overview-feed.ts, lib/overview-feed.ts): ADDs a batch's decisions to
 * the overview's day counters (UpdateItem) and, for a redelivered batch, reads the counter item's
 * per-shard mark (GetItem); only the merchants' overview partitions.
 */
export const OVERVIEW_FEED_ACCESS: TableAccess = {
  ...access(['dynamodb:GetItem', 'dynamodb:UpdateItem']),
  leadingKeys: [overviewKeys.partitions],
};

/**
 * The export state machine itself (lib/lake-export-job.ts): its first state reads the export's
 * kinds from the export item by the keys its start event carries (GetItem), only export items.
 */
export const EXPORT_MACHINE_ACCESS: TableAccess = {
  ...access(['dynamodb:GetItem']),
  leadingKeys: [lakeExportKeys.exportPartitions],
};
