import { shardOf } from '../shard-of.ts';
import { GSI1, PARTITION_KEY, SORT_KEY } from './table-definition.ts';

/**
 * Every key of the single table is built here. Merchant-owned records start with `M#<merchantId>#`,
 * so one merchant's ids can never address another's records.
 */
export interface TableKey {
  [PARTITION_KEY]: string;
  [SORT_KEY]: string;
}

const key = (pk: string, sk: string): TableKey => ({ [PARTITION_KEY]: pk, [SORT_KEY]: sk });

/** The key of an item read from the table. */
export const keyOfItem = (item: Record<string, unknown>): TableKey =>
  key(String(item[PARTITION_KEY]), String(item[SORT_KEY]));
const merchantScope = (merchantId: string) => `M#${merchantId}`;

export const keys = {
  /** The start of every partition key the merchant owns (offboarding finds its items by it). */
  merchantScopePrefix: (merchantId: string) => `${merchantScope(merchantId)}#`,
  merchantProfile: (merchantId: string) => key(`MERCHANT#${merchantId}`, 'PROFILE'),
  apiKey: (keyHash: string) => key(`APIKEY#${keyHash}`, 'APIKEY'),
  order: (merchantId: string, providerOrderId: string) =>
    key(`${merchantScope(merchantId)}#ORDER#${providerOrderId}`, 'ORDER'),
  /** Units returned so far per line of an order, beside the order in its partition. */
  orderReturnedUnits: (merchantId: string, providerOrderId: string) =>
    key(`${merchantScope(merchantId)}#ORDER#${providerOrderId}`, 'RETURNED_UNITS'),
  return: (merchantId: string, providerReturnId: string) =>
    key(`${merchantScope(merchantId)}#RETURN#${providerReturnId}`, 'RETURN'),
  /** A return's item dispositions, beside the return: kept apart so they never crowd the decision record. */
  returnDispositions: (merchantId: string, providerReturnId: string) =>
    key(`${merchantScope(merchantId)}#RETURN#${providerReturnId}`, 'DISPOSITIONS'),
  dispute: (merchantId: string, disputeId: string) =>
    key(`${merchantScope(merchantId)}#DISPUTE#${disputeId}`, 'DISPUTE'),
  customer: (merchantId: string, customerId: string) =>
    key(`${merchantScope(merchantId)}#CUSTOMER#${customerId}`, 'CUSTOMER'),
  /** A signup, keyed by its idempotency key `customerId`. */
  signup: (merchantId: string, customerId: string) =>
    key(`${merchantScope(merchantId)}#SIGNUP#${customerId}`, 'SIGNUP'),
  /** Login and account-update events carry no merchant key, so they live under the service id. */
  login: (merchantId: string, serviceLoginId: string) =>
    key(`${merchantScope(merchantId)}#LOGIN#${serviceLoginId}`, 'LOGIN'),
  accountEvent: (merchantId: string, serviceAccountEventId: string) =>
    key(`${merchantScope(merchantId)}#ACCOUNTEVENT#${serviceAccountEventId}`, 'ACCOUNTEVENT'),
  idempotencyKey: (merchantId: string, endpoint: string, idempotencyKey: string) =>
    key(`${merchantScope(merchantId)}#IDEMPOTENCY#${endpoint}#${idempotencyKey}`, 'IDEMPOTENCY'),
  /** The merchant's rate-limit bucket: one small item, updated once per request. */
  rateLimitBucket: (merchantId: string) => key(`${merchantScope(merchantId)}#RATELIMIT`, 'BUCKET'),
  /** Counters and links of one identity (e-mail, device, card, ...), addressed by its digest. */
  identity: (merchantId: string, kind: string, digest: string) =>
    key(`${merchantScope(merchantId)}#IDENTITY#${kind}#${digest}`, 'COUNTERS'),
  review: (merchantId: string, reviewId: string) =>
    key(`${merchantScope(merchantId)}#REVIEW#${reviewId}`, 'REVIEW'),
  /**
   * A record's free text (shared/store/free-text.ts), in a partition of its own beside the record's:
   * never in a Query of the record's partition (the audit log's), still under the merchant's scope.
   */
  freeText: (recordKey: TableKey) => key(`${recordKey[PARTITION_KEY]}#TEXT`, recordKey[SORT_KEY]),
  workflow: (merchantId: string, eventType: string) =>
    key(`${merchantScope(merchantId)}#WORKFLOW#${eventType}`, 'WORKFLOW'),
};

/**
 * Webhooks: the merchant's subscriptions item (what each enabled endpoint wants, read with every
 * decision), each endpoint with its deliveries in one partition (a Query lists an endpoint's recent
 * deliveries), and each event's outbox item, written in the event's own transaction.
 */
const webhookPartition = (merchantId: string, webhookId: string) =>
  `${merchantScope(merchantId)}#WEBHOOK#${webhookId}`;

export const webhookKeys = {
  subscriptions: (merchantId: string) => key(`${merchantScope(merchantId)}#WEBHOOKS`, 'SUBSCRIPTIONS'),
  endpoint: (merchantId: string, webhookId: string) =>
    key(webhookPartition(merchantId, webhookId), 'ENDPOINT'),
  delivery: (merchantId: string, webhookId: string, deliveryId: string) =>
    key(webhookPartition(merchantId, webhookId), `DELIVERY#${deliveryId}`),
  /** Sort-key prefix of the delivery items in an endpoint's partition. */
  deliveryPrefix: 'DELIVERY#',
  outbox: (merchantId: string, eventId: string) =>
    key(`${merchantScope(merchantId)}#WEBHOOKEVENT#${eventId}`, 'OUTBOX'),
};

/**
 * GSI1 keys for webhooks: a merchant's endpoints by creation time, and the two work queues of the
 * delivery worker (outbox items not yet fanned out, deliveries by the time they are next due). The
 * queues are sparse: an item leaves its queue by losing these attributes.
 */
export const webhookGsi1 = {
  endpointsByMerchant: (merchantId: string, createdAt: string, webhookId: string) => ({
    [GSI1.partitionKey]: `${merchantScope(merchantId)}#WEBHOOKS`,
    [GSI1.sortKey]: `${createdAt}#${webhookId}`,
  }),
  pendingOutbox: (createdAt: string, eventId: string) => ({
    [GSI1.partitionKey]: 'WEBHOOKS#OUTBOX',
    [GSI1.sortKey]: `${createdAt}#${eventId}`,
  }),
  dueDelivery: (dueAt: string, deliveryId: string) => ({
    [GSI1.partitionKey]: 'WEBHOOKS#DUE',
    [GSI1.sortKey]: `${dueAt}#${deliveryId}`,
  }),
};

/**
 * The merchant console: saved workflow versions beside the live workflow (one Query lists them),
 * console sessions by token hash, and the audit log in one partition per merchant, by time.
 */
const auditPartition = (merchantId: string) => `${merchantScope(merchantId)}#AUDIT`;

export const consoleKeys = {
  workflowVersion: (merchantId: string, eventType: string, savedAt: string, version: string) =>
    key(keys.workflow(merchantId, eventType)[PARTITION_KEY], `VERSION#${savedAt}#${version}`),
  workflowVersionPrefix: 'VERSION#',
  consoleSession: (tokenHash: string) => key(`CONSOLESESSION#${tokenHash}`, 'SESSION'),
  auditEntry: (merchantId: string, at: string, entryId: string) =>
    key(auditPartition(merchantId), `${at}#${entryId}`),
};

/**
 * Block, watch and allow list entries: one item per entry, and the merchant's entries in one GSI1
 * partition, newest first. Entries are written at the rate of feedback and of people, far below
 * the 1,000 writes/s a partition takes, so the listing needs no shards.
 */
export const listKeys = {
  entry: (merchantId: string, entryId: string) =>
    key(`${merchantScope(merchantId)}#LISTENTRY#${entryId}`, 'LISTENTRY'),
};

export const listGsi1 = {
  entriesPartition: (merchantId: string) => `${merchantScope(merchantId)}#LISTS`,
  entriesByMerchant: (merchantId: string, createdAt: string, entryId: string) => ({
    [GSI1.partitionKey]: listGsi1.entriesPartition(merchantId),
    [GSI1.sortKey]: `${createdAt}#${entryId}`,
  }),
};

/**
 * A history import's status (shared/store/history-imports.ts): one item per merchant and file,
 * named by a digest of the file's name (an S3 key may be longer than a key should be).
 */
export const historyImportKeys = {
  status: (merchantId: string, fileDigest: string) =>
    key(`${merchantScope(merchantId)}#HISTORYIMPORT#${fileDigest}`, 'STATUS'),
};

/**
 * A dispositions CSV upload being recorded (shared/store/disposition-uploads.ts): the upload item
 * (totals, progress) and its chunks of validated rows in one partition, so one Query reads the
 * chunks still to record.
 */
const uploadPartition = (merchantId: string, uploadId: string) =>
  `${merchantScope(merchantId)}#DISPOSITIONUPLOAD#${uploadId}`;

export const uploadKeys = {
  upload: (merchantId: string, uploadId: string) => key(uploadPartition(merchantId, uploadId), 'UPLOAD'),
  chunk: (merchantId: string, uploadId: string, index: number) =>
    key(uploadPartition(merchantId, uploadId), `CHUNK#${String(index).padStart(5, '0')}`),
  /** Sort-key prefix of the chunk items in an upload's partition. */
  chunkPrefix: 'CHUNK#',
};

/**
 * GSI1 key of an upload still recording: the local poller's work queue (in AWS a rule on the jobs'
 * bus brings the new upload to the worker). Sparse: the upload leaves the queue when it finishes.
 */
const RECORDING_UPLOADS = 'DISPOSITIONUPLOADS#RECORDING';

export const uploadGsi1 = {
  recordingPartition: RECORDING_UPLOADS,
  recording: (createdAt: string, uploadId: string) => ({
    [GSI1.partitionKey]: RECORDING_UPLOADS,
    [GSI1.sortKey]: `${createdAt}#${uploadId}`,
  }),
};

/** The merchant's own id of a merchant-owned record (`M#<m>#RETURN#r-1` -> `r-1`). */
export const recordIdOf = (recordKey: TableKey): string =>
  recordKey[PARTITION_KEY].replace(/^M#[^#]+#[A-Z]+#/, '');

/** The key hash an API-key item is addressed by (the inverse of keys.apiKey). */
export const apiKeyHashOf = (apiKeyItem: TableKey): string =>
  apiKeyItem[PARTITION_KEY].replace(/^APIKEY#/, '');

/**
 * Per-merchant GSI1 listings are sharded so no index partition is hot: an item goes to the shard
 * its id hashes to (a replay lands on the same one), and a listing reads every shard and merges
 * them by sort key (shared/store/index-query.ts). A partition takes at most 1,000 writes/s; at
 * 20,000 decisions/s of one merchant the event listing puts 20,000 / 64 = 313 writes/s on each
 * shard, and reviews (a share of decisions) stay under 500 per shard while under 40% of decisions
 * go to review.
 */
const EVENT_INDEX_SHARDS = 64;
const REVIEW_INDEX_SHARDS = 16;

/** FNV-1a of an id, modulo the shard count. */

const reviewPartition = (merchantId: string, status: string, shard: number) =>
  `${merchantScope(merchantId)}#REVIEWS#${status}#${shard}`;
const eventPartition = (merchantId: string, eventType: string, shard: number) =>
  `${merchantScope(merchantId)}#EVENTS#${eventType}#${shard}`;
const allShards = (shards: number) => Array.from({ length: shards }, (_, shard) => shard);

/**
 * Reviews opened per merchant, event type and UTC day, counted without a hot item: the count is
 * split over REVIEW_COUNTER_SHARDS items, an event counting (and reading) the shard its id hashes
 * to. An event reads one shard and scales it by the shard count, so the total is approximate, and
 * each shard stops the default rules from reviewing once its share of the day's capacity is used:
 * a day opens at most capacity + 7 reviews (each shard at most ceil(capacity / 8)), give or take the
 * few decided at the same moment. Reviews are a share of decisions and stop at the capacity, so
 * the writes stay far below a partition's 1,000 a second; the reads (every return, signup, login
 * and account update reads one) spread over 8 partitions.
 */
export const REVIEW_COUNTER_SHARDS = 8;

const reviewCounterShard = (merchantId: string, eventType: string, day: string, shard: number) =>
  key(`${merchantScope(merchantId)}#REVIEWCOUNT#${eventType}#${day}#${shard}`, 'COUNT');

/** The shard an event reads and counts in. */
export const reviewCounterKey = (merchantId: string, eventType: string, day: string, eventId: string) =>
  reviewCounterShard(merchantId, eventType, day, shardOf(eventId, REVIEW_COUNTER_SHARDS));

/** Every shard of the day: the console adds them up. */
export const reviewCounterShards = (merchantId: string, eventType: string, day: string) =>
  allShards(REVIEW_COUNTER_SHARDS).map((shard) => reviewCounterShard(merchantId, eventType, day, shard));

/** GSI1 keys: secondary access paths. */
export const gsi1 = {
  apiKeyById: (keyId: string) => ({ [GSI1.partitionKey]: `KEYID#${keyId}`, [GSI1.sortKey]: 'APIKEY' }),
  reviewByStatus: (merchantId: string, status: string, createdAt: string, reviewId: string) => ({
    [GSI1.partitionKey]: reviewPartition(merchantId, status, shardOf(reviewId, REVIEW_INDEX_SHARDS)),
    [GSI1.sortKey]: `${createdAt}#${reviewId}`,
  }),
  /** Every shard of the reviews in one status: a listing reads them all. */
  reviewPartitions: (merchantId: string, status: string) =>
    allShards(REVIEW_INDEX_SHARDS).map((shard) => reviewPartition(merchantId, status, shard)),
  /** Decided events of one type by time (backtests); `createdAt` is ISO 8601 so keys sort by time. */
  eventsByType: (merchantId: string, eventType: string, createdAt: string, eventId: string) => ({
    [GSI1.partitionKey]: eventPartition(merchantId, eventType, shardOf(eventId, EVENT_INDEX_SHARDS)),
    [GSI1.sortKey]: `${createdAt}#${eventId}`,
  }),
  /** Every shard of the decided events of one type. */
  eventPartitions: (merchantId: string, eventType: string) =>
    allShards(EVENT_INDEX_SHARDS).map((shard) => eventPartition(merchantId, eventType, shard)),
};

/**
 * Learning (shared/learning/): a merchant's trained model versions per event type, immutable, and the
 * one pointers item naming the active and shadow versions, together in one partition, so a single
 * Query lists them and live scoring reads the pointers item in its BatchGetItem.
 */
const modelPartition = (merchantId: string, eventType: string) =>
  `${merchantScope(merchantId)}#MODEL#${eventType}`;

export const learningKeys = {
  modelVersion: (merchantId: string, eventType: string, version: string) =>
    key(modelPartition(merchantId, eventType), `VERSION#${version}`),
  modelPointers: (merchantId: string, eventType: string) =>
    key(modelPartition(merchantId, eventType), 'POINTERS'),
  /** The type's trade-off histogram (lake/tradeoff-histogram.ts), kept by the nightly item. */
  tradeoffHistogram: (merchantId: string, eventType: string) =>
    key(modelPartition(merchantId, eventType), 'TRADEOFFS'),
  /** Sort-key prefix of the version items in the model partition. */
  modelVersionPrefix: 'VERSION#',
};

/**
 * The overview's daily rollups (lake/overview-rollup.ts): one item per merchant, event type and UTC
 * day in one partition per merchant and type, so the console reads a range of days with one Query.
 */
const overviewPartition = (merchantId: string, eventType: string) =>
  `${merchantScope(merchantId)}#OVERVIEW#${eventType}`;

export const overviewKeys = {
  day: (merchantId: string, eventType: string, day: string) =>
    key(overviewPartition(merchantId, eventType), `DAY#${day}`),
  /** A day's counters kept from the table's stream (store/overview-counters.ts) until its rollup lands. */
  counters: (merchantId: string, eventType: string, day: string) =>
    key(overviewPartition(merchantId, eventType), `LIVE#${day}`),
  partition: overviewPartition,
  /** Every merchant's overview partitions, as an IAM LeadingKeys pattern (the overview feed's). */
  partitions: overviewPartition('*', '*'),
  dayPrefix: 'DAY#',
  countersPrefix: 'LIVE#',
};

/** GSI1 keys for learning: a merchant's disputes by creation time, so training finds its chargebacks. */
export const learningGsi1 = {
  /** Every merchant, by creation: the nightly training job's list of whom to train. */
  merchants: (createdAt: string, merchantId: string) => ({
    [GSI1.partitionKey]: 'MERCHANTS',
    [GSI1.sortKey]: `${createdAt}#${merchantId}`,
  }),
  disputesByMerchant: (merchantId: string, createdAt: string, disputeId: string) => ({
    [GSI1.partitionKey]: `${merchantScope(merchantId)}#DISPUTES`,
    [GSI1.sortKey]: `${createdAt}#${disputeId}`,
  }),
};

/**
 * The opt-in network (shared/network/): per network identity (a keyed hash, never a merchant's
 * digest), one reputation item read on members' decision paths and one ledger item per merchant
 * that contributed to it, in the same partition (a Query lists an identity's ledgers when its
 * reputation is rebuilt). Nothing here starts with `M#`: no merchant's id addresses these items,
 * and the ledger is never read on the decision path nor returned to anyone.
 */
const networkPartition = (networkKey: string) => `NET#${networkKey}`;

export const networkKeys = {
  reputation: (networkKey: string) => key(networkPartition(networkKey), 'REPUTATION'),
  ledger: (networkKey: string, merchantId: string) => key(networkPartition(networkKey), `M#${merchantId}`),
  /** Sort-key prefix of the ledger items in an identity's partition. */
  ledgerPrefix: 'M#',
  /** A member's confirmed-abuse contributions accepted on a UTC day (the daily cap's counter). */
  dailyCauses: (merchantId: string, day: string) => key(`${merchantScope(merchantId)}#NETWORKCAUSES`, day),
  /** A member's feedback waiting for the worker: one item per cause, overwritten by its latest state. */
  work: (merchantId: string, cause: string) =>
    key(`${merchantScope(merchantId)}#NETWORKWORK#${cause}`, 'WORK'),
};

/**
 * GSI1 for the network: the worker's queue (members' feedback and first sightings, and a leaving
 * member's withdrawal) and each member's ledger entries (withdrawal finds them there). Both are
 * sparse and sharded: a first sighting is queued with every new identity of a member, up to a few
 * per order, so at 20,000 orders/s with two new shared identities each the queue takes 40,000
 * writes/s over NETWORK_QUEUE_SHARDS = 64 partitions (625/s each, under the 1,000 a partition
 * takes); a member's ledger entries are written at the rate of its first sightings, spread over
 * NETWORK_LEDGER_SHARDS = 64 per merchant by network key for the same reason.
 */
const NETWORK_QUEUE_SHARDS = 64;
const NETWORK_LEDGER_SHARDS = 64;

const networkQueuePartition = (shard: number) => `NETWORK#QUEUE#${shard}`;
const networkLedgerPartition = (merchantId: string, shard: number) =>
  `${merchantScope(merchantId)}#NETLEDGER#${shard}`;

export const networkGsi1 = {
  queued: (id: string, at: string) => ({
    [GSI1.partitionKey]: networkQueuePartition(shardOf(id, NETWORK_QUEUE_SHARDS)),
    [GSI1.sortKey]: `${at}#${id}`,
  }),
  queuePartitions: () => allShards(NETWORK_QUEUE_SHARDS).map(networkQueuePartition),
  ledgerByMerchant: (merchantId: string, networkKey: string) => ({
    [GSI1.partitionKey]: networkLedgerPartition(merchantId, shardOf(networkKey, NETWORK_LEDGER_SHARDS)),
    [GSI1.sortKey]: networkKey,
  }),
  ledgerPartitions: (merchantId: string) =>
    allShards(NETWORK_LEDGER_SHARDS).map((shard) => networkLedgerPartition(merchantId, shard)),
};

const privacyListingPartition = (merchantId: string) => `${merchantScope(merchantId)}#PRIVACY#REQUESTS`;

/**
 * Privacy requests (shared/use-cases/privacy-requests.ts): a merchant's erase or export request,
 * digests only, and an erasure's tombstone beside it, which outlives the table's point-in-time
 * recovery window so that a restore can erase again.
 */
export const privacyKeys = {
  request: (merchantId: string, requestId: string) =>
    key(`${merchantScope(merchantId)}#PRIVACY#${requestId}`, 'REQUEST'),
  tombstone: (merchantId: string, requestId: string) =>
    key(`${merchantScope(merchantId)}#PRIVACY#${requestId}`, 'TOMBSTONE'),
  /**
   * The merchant's requests in one partition, by time (the console lists them, newest first): the
   * queue's GSI1 entry leaves a request when it ends, so the listing has items of its own. Written
   * at the rate of people's requests.
   */
  listed: (merchantId: string, createdAt: string, requestId: string) =>
    key(privacyListingPartition(merchantId), `${createdAt}#${requestId}`),
  listingPartition: privacyListingPartition,
  /** An offboarded merchant's receipt: outside its scope, so deleting the merchant keeps it. */
  offboarded: (merchantId: string) => key(`OFFBOARDED#${merchantId}`, 'RECEIPT'),
};

/** A merchant's bulk export from the lake (shared/use-cases/lake-exports.ts). */
export const lakeExportKeys = {
  export: (merchantId: string, exportId: string) =>
    key(`${merchantScope(merchantId)}#EXPORT#${exportId}`, 'EXPORT'),
  /** IAM `dynamodb:LeadingKeys` patterns: any merchant's export items, any merchant's audit log. */
  exportPartitions: `${merchantScope('*')}#EXPORT#*`,
  auditPartitions: auditPartition('*'),
};

/**
 * GSI1 for exports waiting for the local runner (sparse, as privacy requests'): in AWS the state
 * machine is started from the table's changes and the entry only leaves with the outcome.
 */
const LAKE_EXPORTS_PENDING = 'EXPORT#PENDING';
export const lakeExportGsi1 = {
  pendingPartition: LAKE_EXPORTS_PENDING,
  pending: (createdAt: string, merchantId: string, exportId: string) => ({
    [GSI1.partitionKey]: LAKE_EXPORTS_PENDING,
    [GSI1.sortKey]: `${createdAt}#${merchantId}#${exportId}`,
  }),
};

/** A workflow backtest over the lake (shared/use-cases/backtests.ts). */
export const backtestKeys = {
  backtest: (merchantId: string, backtestId: string) =>
    key(`${merchantScope(merchantId)}#BACKTEST#${backtestId}`, 'BACKTEST'),
  /** IAM `dynamodb:LeadingKeys` pattern: any merchant's backtest items. */
  backtestPartitions: `${merchantScope('*')}#BACKTEST#*`,
};

/** GSI1 for backtests waiting for the local runner, as exports' (sparse: an entry leaves with the outcome). */
const BACKTESTS_PENDING = 'BACKTEST#PENDING';
export const backtestGsi1 = {
  pendingPartition: BACKTESTS_PENDING,
  pending: (createdAt: string, merchantId: string, backtestId: string) => ({
    [GSI1.partitionKey]: BACKTESTS_PENDING,
    [GSI1.sortKey]: `${createdAt}#${merchantId}#${backtestId}`,
  }),
};

/**
 * GSI1 for privacy: requests waiting for the worker (sparse: a request leaves the queue when it
 * ends) and every tombstone, which the restore runbook replays. Both are written at the rate of
 * people's requests, far below what one partition takes.
 */
const PRIVACY_PENDING = 'PRIVACY#PENDING';
const PRIVACY_TOMBSTONES = 'PRIVACY#TOMBSTONES';
const PRIVACY_LAKE = 'PRIVACY#LAKE';
const PRIVACY_OFFBOARDED = 'PRIVACY#OFFBOARDED';
const PRIVACY_OFFBOARDING = 'PRIVACY#OFFBOARDING';

export const privacyGsi1 = {
  pendingPartition: PRIVACY_PENDING,
  pending: (createdAt: string, merchantId: string, requestId: string) => ({
    [GSI1.partitionKey]: PRIVACY_PENDING,
    [GSI1.sortKey]: `${createdAt}#${merchantId}#${requestId}`,
  }),
  /** Erasures whose lake passes are to run, by when the next is due. */
  lakePartition: PRIVACY_LAKE,
  lake: (dueAt: string, merchantId: string, requestId: string) => ({
    [GSI1.partitionKey]: PRIVACY_LAKE,
    [GSI1.sortKey]: `${dueAt}#${merchantId}#${requestId}`,
  }),
  tombstonesPartition: PRIVACY_TOMBSTONES,
  tombstone: (createdAt: string, merchantId: string, requestId: string) => ({
    [GSI1.partitionKey]: PRIVACY_TOMBSTONES,
    [GSI1.sortKey]: `${createdAt}#${merchantId}#${requestId}`,
  }),
  offboardedPartition: PRIVACY_OFFBOARDED,
  offboarded: (at: string, merchantId: string) => ({
    [GSI1.partitionKey]: PRIVACY_OFFBOARDED,
    [GSI1.sortKey]: `${at}#${merchantId}`,
  }),
  /** Offboardings still running, oldest first: the worker's queue (they join `offboarded` when done). */
  offboardingPartition: PRIVACY_OFFBOARDING,
  offboarding: (startedAt: string, merchantId: string) => ({
    [GSI1.partitionKey]: PRIVACY_OFFBOARDING,
    [GSI1.sortKey]: `${startedAt}#${merchantId}`,
  }),
};
