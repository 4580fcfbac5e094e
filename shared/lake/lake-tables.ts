/**
 * The lake's tables, defined once: the local writer (DuckDB), the Glue catalog (lib/lake-stack.ts),
 * the Firehose record format conversion and every query read these columns. Each table is stored as
 * Parquet under `<table>/kind=<kind>/merchant_id=<id>/day=<yyyy-mm-dd>/`: the record kind first so a
 * lifecycle rule can keep each kind as long as the table keeps it, then the merchant (every query
 * names one), then the UTC day (every query bounds its window).
 *
 * Rows are what the table holds, never more: identities are `kind#digest`, signals are numbers; the
 * masked identity hints, notes and names of people the table also keeps are left out.
 */
export type LakeColumnType = 'string' | 'bigint' | 'int' | 'double' | 'array<string>';

export interface LakeColumn {
  name: string;
  type: LakeColumnType;
  comment: string;
}

export const LAKE_PARTITION_COLUMNS = ['kind', 'merchant_id', 'day'] as const;

/** Columns every table ends with: the item's revision and when the change reached the lake. */
const CHANGE_COLUMNS: LakeColumn[] = [
  { name: 'revision', type: 'bigint', comment: "The item's version (0 when it has none); the latest wins" },
  { name: 'changed_at', type: 'bigint', comment: 'When the table changed (epoch ms, from the stream)' },
];

export const LAKE_TABLES = {
  decided_events: {
    description: 'One row per decision part of a decided event (a return decides per returned line)',
    kinds: ['order', 'return', 'signup', 'login', 'account'],
    columns: [
      { name: 'event_key', type: 'string', comment: "The event's record key (reviews name it)" },
      { name: 'event_id', type: 'string', comment: "The merchant's id of the event (feedback names it)" },
      { name: 'part', type: 'int', comment: 'The decision part: 0, or the returned line' },
      { name: 'event_at', type: 'bigint', comment: "The event's time as scored (epoch ms)" },
      { name: 'decision', type: 'string', comment: 'APPROVE, DECLINE or REVIEW' },
      {
        name: 'sub_decision',
        type: 'string',
        comment: "The workflow branch that decided: the reason's stable key (the overview counts by it)",
      },
      { name: 'abuse_score', type: 'double', comment: '0-100' },
      { name: 'model_version', type: 'string', comment: 'The model that scored it' },
      {
        name: 'value',
        type: 'double',
        comment: "The value the economics weigh (an order's total, a line's)",
      },
      { name: 'signals', type: 'string', comment: 'The signal values as the model saw them (JSON object)' },
      {
        name: 'fields',
        type: 'string',
        comment: 'The event fields the workflow read (JSON object; null before they were kept): backtests',
      },
      {
        name: 'model_thresholds',
        type: 'string',
        comment: "The model's thresholds the workflow read (JSON object or null): backtests",
      },
      { name: 'identities', type: 'array<string>', comment: "The event's identities as kind#digest" },
      {
        name: 'sample_key',
        type: 'double',
        comment: "The part's place in [0, 1) for sampling negatives (shared/learning/sampling.ts)",
      },
      ...CHANGE_COLUMNS,
    ],
  },
  feedback: {
    description: 'Disputes, dispositions (one row per returned line) and resolved reviews, as they stand',
    kinds: ['dispute', 'disposition', 'review'],
    columns: [
      { name: 'feedback_id', type: 'string', comment: 'The dispute id, the return id or the review id' },
      { name: 'order_id', type: 'string', comment: 'dispute: the disputed order' },
      { name: 'dispute_status', type: 'string', comment: 'dispute: OPEN, RESPONDED, WON or LOST' },
      { name: 'return_id', type: 'string', comment: 'disposition: the return' },
      { name: 'line', type: 'int', comment: 'disposition: the returned line' },
      { name: 'item_condition', type: 'string', comment: 'disposition: the returned item condition' },
      { name: 'disposition_outcome', type: 'string', comment: 'disposition: what the warehouse did' },
      { name: 'event_key', type: 'string', comment: 'review: the reviewed event record key' },
      { name: 'review_outcome', type: 'string', comment: 'review: abuse or legitimate' },
      { name: 'feedback_at', type: 'bigint', comment: 'When the feedback happened (epoch ms)' },
      ...CHANGE_COLUMNS,
    ],
  },
  list_changes: {
    description: 'Block, watch and allow list entries as made (digests only)',
    kinds: ['list_entry'],
    columns: [
      { name: 'entry_id', type: 'string', comment: 'The entry' },
      { name: 'list', type: 'string', comment: 'block, watch or allow' },
      { name: 'identity_kind', type: 'string', comment: 'email, card, device, ...' },
      { name: 'digest', type: 'string', comment: "The identity's digest" },
      { name: 'source', type: 'string', comment: 'Who or what made it: a person or a feedback rule' },
      { name: 'created_at', type: 'bigint', comment: 'epoch ms' },
      { name: 'effective_at', type: 'bigint', comment: 'From when it acts (epoch ms)' },
      { name: 'expires_at', type: 'bigint', comment: 'When it stops acting (epoch ms), if it does' },
      { name: 'cause', type: 'string', comment: 'The feedback that made it (dispute:<id>, ...)' },
      ...CHANGE_COLUMNS,
    ],
  },
} as const satisfies Record<string, { description: string; kinds: readonly string[]; columns: LakeColumn[] }>;

export type LakeTableName = keyof typeof LAKE_TABLES;
export const LAKE_TABLE_NAMES = Object.keys(LAKE_TABLES) as LakeTableName[];
type KindOf<T extends LakeTableName> = (typeof LAKE_TABLES)[T]['kinds'][number];
type ValueOf<C extends LakeColumnType> = C extends 'array<string>'
  ? string[]
  : C extends 'string'
    ? string
    : number;

/** A row of a lake table: its partition and its columns (null where it has none). */
export type LakeRow<T extends LakeTableName = LakeTableName> = {
  [N in T]: {
    table: N;
    kind: KindOf<N>;
    merchantId: string;
    /** The UTC day (yyyy-mm-dd) of the row's own time: the event's, the feedback's, the entry's. */
    day: string;
    values: {
      [C in (typeof LAKE_TABLES)[N]['columns'][number] as C['name']]: ValueOf<C['type']> | null;
    };
  };
}[T];
