import type { ErrorCode } from '../errors.ts';
import type { RouteDeprecation } from './endpoints.ts';
import type { ApiEndpointName } from './management-endpoints.ts';

/**
 * What the OpenAPI document says of each endpoint of the registry (shared/contract/endpoints.ts):
 * its prose, the error codes it answers and its example. Nothing a request needs, kept apart from the
 * registry so that the Lambda bundles, which read the registry, do not carry it: only the document
 * (shared/contract/openapi.ts) and the tests import this module. Keyed by every endpoint name, so tsc
 * fails when an endpoint lacks its text.
 */
export interface EndpointDocs {
  summary: string;
  description: string;
  /** Codes this endpoint answers beyond COMMON_ERRORS (all from the catalog in shared/errors.ts). */
  errors: readonly ErrorCode[];
  /** A request body in examples/, shown in the OpenAPI document. */
  exampleFile?: string;
}

/** Codes every endpoint can answer: authentication, validation, limits and capacity. */
const COMMON_ERRORS: readonly ErrorCode[] = [
  'invalid_request',
  'unauthenticated',
  'invalid_api_key',
  'environment_mismatch',
  'forbidden',
  'payload_too_large',
  'unprocessable_entity',
  'unknown_field',
  'rate_limited',
  'internal_error',
  'bad_gateway',
  'service_unavailable',
];

/** Every code an endpoint can answer, in catalog order of first mention. */
export function errorsOf(endpoint: {
  errors: readonly ErrorCode[];
  deprecation?: RouteDeprecation | undefined;
}): ErrorCode[] {
  return [
    ...new Set([...COMMON_ERRORS, ...endpoint.errors, ...(endpoint.deprecation ? (['gone'] as const) : [])]),
  ];
}

export const ENDPOINT_DOCS: Readonly<Record<ApiEndpointName, EndpointDocs>> = {
  order: {
    summary: 'Score an order',
    description:
      'Records the order, updates customer variables, runs the orders workflow and returns the decision.',
    errors: ['invalid_currency_code', 'invalid_timestamp', 'duplicate_order'],
    exampleFile: 'order.json',
  },
  return: {
    summary: 'Score a return',
    description: 'Evaluates the return against the returns workflow; one decision per returned line item.',
    errors: ['invalid_timestamp', 'order_not_found', 'duplicate_return'],
    exampleFile: 'return.json',
  },
  disposition: {
    summary: 'Report the inspection outcome of returned items',
    description: 'Reporting only; no decision. `{return-id}` is the providerReturnId of the original return.',
    errors: ['unknown_enum_value', 'return_not_found', 'item_not_on_return', 'idempotency_key_reused'],
    exampleFile: 'disposition.json',
  },
  dispute: {
    summary: 'Report a payment dispute or its outcome',
    description: 'Reporting only; no decision. `{order-id}` is the providerOrderId of the original order.',
    errors: [
      'invalid_timestamp',
      'unknown_enum_value',
      'order_not_found',
      'duplicate_dispute_id',
      'idempotency_key_reused',
    ],
    exampleFile: 'dispute.json',
  },
  signup: {
    summary: 'Score a new account',
    description: 'Evaluates a newly created account.',
    errors: ['invalid_timestamp', 'duplicate_customer'],
    exampleFile: 'signup.json',
  },
  login: {
    summary: 'Score a login attempt',
    description: 'Called on every login attempt, successful or failed.',
    errors: ['invalid_timestamp', 'idempotency_key_reused'],
    exampleFile: 'login.json',
  },
  account: {
    summary: 'Score an account change',
    description: 'Available only on accounts where it has been enabled on request.',
    errors: ['endpoint_not_enabled', 'invalid_timestamp', 'idempotency_key_reused'],
    exampleFile: 'account.json',
  },
  consoleSignIn: {
    summary: 'Sign in to the console',
    description:
      'Exchanges the console key in Authorization for a session (12 h) carried in an HttpOnly; Secure; SameSite=Strict cookie; the key itself is never kept by the browser.',
    errors: [],
  },
  consoleSignOut: {
    summary: 'Sign out of the console',
    description: 'Ends the session of the cookie and clears the cookie.',
    errors: [],
  },
  reviewList: {
    summary: 'List reviews',
    description: 'The review queue, oldest first, filtered by status (default open) and event type.',
    errors: [],
  },
  reviewShow: {
    summary: 'Show a review with its explanation',
    description: 'The review and the explanation of the decision(s) that put the event into the queue.',
    errors: ['not_found'],
  },
  reviewResolve: {
    summary: 'Resolve a review',
    description:
      'Labels the event abuse or legitimate; the label lands on its identities like any feedback. A review resolves once.',
    errors: ['not_found', 'review_already_resolved'],
  },
  decisionShow: {
    summary: 'Explain a decision',
    description:
      'Looks a decided event up by the merchant’s id (providerOrderId, providerReturnId, customerId, serviceLoginId, serviceAccountEventId): score, signals and contributions, the rule and the values it saw, versions, identity counters.',
    errors: ['not_found'],
  },
  workflowShow: {
    summary: 'Get the live workflow',
    description: 'The workflow deciding this event type now (the default one until the merchant saves one).',
    errors: ['not_found'],
  },
  workflowSave: {
    summary: 'Save a workflow (new version)',
    description: 'Validates the workflow as the admin CLI does, then makes it live as a new version.',
    errors: ['not_found', 'invalid_workflow'],
  },
  workflowValidate: {
    summary: 'Validate a workflow',
    description: 'Every problem of a candidate workflow, in the admin CLI’s words; saves nothing.',
    errors: ['not_found'],
  },
  workflowVersions: {
    summary: 'List saved workflow versions',
    description: 'Every saved version, newest first, with who saved it.',
    errors: ['not_found'],
  },
  dispositionsUpload: {
    summary: 'Upload dispositions as CSV',
    description:
      'A `text/csv` file with a header row (returnId, identifierType, identifier, returnedItemCondition, dispositionOutcome, returnMethod, refundMode, warehouseIdentifier, storeIdentifier, images, inspectionNote; images separated by `|`). Every row is checked first; if any fails nothing is recorded and `error.details` lists each failing row (line, column, code). A valid file is answered 202: its rows are recorded by a job whose progress `Location` (GET /v1/return/dispositions/uploads/{upload-id}) shows. Uploading the same file again changes nothing (its returns count as already present).',
    errors: ['invalid_csv_rows'],
  },
  dispositionsUploadShow: {
    summary: 'Show a dispositions upload',
    description:
      'The job recording an accepted upload: `recording`, `done` or `failed`, the file’s totals, how many returns are recorded or were already present so far, any return refused while recording, and when it finished.',
    errors: ['not_found'],
  },
  overview: {
    summary: 'Decisions overview',
    description:
      'Decisions per day by event type and outcome, the score distribution, top reasons and open reviews for a period (UTC days).',
    errors: [],
  },
  auditList: {
    summary: 'Audit log',
    description:
      'Every change made through the console (review resolved, workflow saved, upload), newest first.',
    errors: [],
  },
  settingsShow: {
    summary: 'Get the decision settings of an event type',
    description:
      'What decisions of this type cost the merchant (amounts in its own currency; nothing is converted), the review capacity per day and the good-customer budget, beside their defaults; the guard’s floors in force and where they come from; reviews opened today. The default workflows decline where approving is expected to cost more than declining and review where a review costs less than both, from these numbers and the live model’s probability.',
    errors: ['not_found'],
  },
  settingsSave: {
    summary: 'Change the decision settings of an event type',
    description:
      'Replaces the settings set for this type: one left out takes its default. Shares are 0-1, amounts 0-1,000,000, the capacity a whole number. A setting of another event type is 422 `unknown_field`. The guard is measured again for a changed budget; decisions follow within 30 s. Audited.',
    errors: ['not_found'],
    exampleFile: 'settings-order.json',
  },
  tradeoffsShow: {
    summary: 'The trade-off of every threshold',
    description:
      'For every threshold 0-100, over the last 90 days of labeled decisions of the type (the newest 20,000; unlabeled and censored ones excluded and counted) scored by the live model, and over a trained live model’s holdout: the share of abuse caught, of good events declined and reviewed, and the expected cost at the merchant’s settings. The live per-event thresholds (min, median, max) and the guard are given; computing the report measures the guard again.',
    errors: ['not_found'],
  },
  webhookList: {
    summary: 'List webhook endpoints',
    description:
      'The merchant’s webhook endpoints: URL, events, filters, status (and why disabled). Never their secrets.',
    errors: [],
  },
  webhookCreate: {
    summary: 'Create a webhook endpoint',
    description:
      'Subscribes a URL to decision.created (filterable by event type and outcome), review.created and review.resolved. The signing secret is in this answer only. Production accepts only https URLs that are not loopback, private, link-local or metadata addresses.',
    errors: ['not_found'],
  },
  webhookShow: {
    summary: 'Show a webhook endpoint',
    description: 'One endpoint: URL, events, filters, status (and why disabled).',
    errors: ['not_found'],
  },
  webhookUpdate: {
    summary: 'Update a webhook endpoint',
    description: 'Changes the URL, events or filters; `enabled: false` disables it, `true` enables it again.',
    errors: ['not_found'],
  },
  webhookDelete: {
    summary: 'Delete a webhook endpoint',
    description: 'It receives nothing more; its past deliveries stay listed until they expire (30 days).',
    errors: ['not_found'],
  },
  webhookRotateSecret: {
    summary: 'Rotate the signing secret',
    description:
      'A new secret, in this answer only; the previous one keeps signing (a second `v1=`) for 24 h.',
    errors: ['not_found'],
  },
  webhookTest: {
    summary: 'Send a test event',
    description:
      'Queues a `webhook.test` event to this endpoint; its delivery shows in the endpoint’s deliveries.',
    errors: ['not_found'],
  },
  webhookDeliveries: {
    summary: 'List recent deliveries',
    description:
      'Newest first: status, attempts, the last answer (HTTP status, error, latency) and the next attempt.',
    errors: ['not_found'],
  },
  webhookRedeliver: {
    summary: 'Redeliver an event',
    description: 'Queues the delivery again with the same event id (Webhook-Id) and a fresh 72 h of retries.',
    errors: ['not_found'],
  },
  listEntryList: {
    summary: 'List block, watch and allow list entries',
    description:
      'The merchant’s entries, newest first, filtered by list, identity kind or source (`feedback`: made by the feedback rules). Each says whether it acts now: `active`, `expired`, or `displaced` (its identity holds the most entries that can act, block over allow over watch, newest first).',
    errors: [],
  },
  listEntryAdd: {
    summary: 'Add an identity to a list',
    description:
      'Puts a card, device, e-mail, phone, address or customer id on the block, watch or allow list, from now on, optionally until `expiresAt` and only for some event types. The value is normalized and hashed as the events’ are; only the digest and a masked hint are kept. A blocked identity’s events are declined (returns reviewed) whatever the score; a watched one raises the score, more when the customer was first seen after the entry; an allowed customer (`customer` or `email`) is not declined by the workflow. One entry per identity and list: the same request again answers the entry made (Idempotent-Replayed), another one is 409 `duplicate_list_entry`.',
    errors: ['duplicate_list_entry'],
    exampleFile: 'list-entry.json',
  },
  listEntryShow: {
    summary: 'Show a list entry',
    description:
      'One entry: list, masked identity, reason, source, who and when, expiry, scope, cause, and whether it acts now.',
    errors: ['not_found'],
  },
  listEntryRemove: {
    summary: 'Remove a list entry',
    description:
      'The entry stops acting at once; a feedback rule’s entry may be removed too (its dispute or return does not put it back unless its feedback changes again).',
    errors: ['not_found'],
  },
  listRulesShow: {
    summary: 'Get the feedback rules',
    description:
      'Which feedback rules add list entries by themselves (all on by default): `lostFraudChargeback` (a LOST fraud chargeback blocks the card for orders and watches the order’s devices, addresses and phones), `abusiveDisposition` (an empty box, counterfeit or suspected-abuse return watches its e-mail, card, device and address), `abuseReview` (a review resolved as abuse watches the event’s e-mail, card, device and address).',
    errors: [],
  },
  listRulesSave: {
    summary: 'Switch the feedback rules',
    description:
      'Sets every rule on or off. Off stops a rule adding entries; its counterpart (a WON dispute, a clean disposition, a legitimate review) still removes what it added.',
    errors: [],
    exampleFile: 'list-rules.json',
  },
  networkShow: {
    summary: 'Get the network membership',
    description:
      'Whether the merchant is in the opt-in network (off by default) and when that last changed. A member’s confirmed abuse (lost fraud chargebacks, abusive dispositions, reviews resolved as abuse) and first sightings of cards, devices and e-mails contribute keyed-hash reputation; its order decisions read other members’ reputation as two signals. Nothing else is shared: see docs/network.md.',
    errors: [],
  },
  networkSave: {
    summary: 'Join or leave the network',
    description:
      'Sets membership on or off, audited. Decisions follow within 30 seconds. Leaving withdraws everything the merchant contributed; joining again starts afresh (earlier feedback is not back-filled).',
    errors: [],
    exampleFile: 'network.json',
  },
  privacyRequestCreate: {
    summary: 'Erase or export one customer',
    description:
      'Names one customer by the identifiers its events sent (customer ids, e-mails, phones, cards, devices, addresses), normalised and hashed as events are; only the digests are kept. Answered 202 with `Location` at once; a job then erases (`erase`) or exports (`export`) everything the merchant holds about them, within minutes for most merchants. An erasure removes their events and everything beside them, identity counters, list entries, webhook deliveries, audit-log text and the merchant’s network contributions, and keeps a tombstone of digests (docs/privacy.md). It is not a block: a later event from the same person is a new customer. An export is a JSON document behind a link that expires. Audited.',
    errors: [],
    exampleFile: 'privacy-request.json',
  },
  privacyRequestList: {
    summary: 'List privacy requests',
    description:
      'The merchant’s erase and export requests, newest first: each one’s status, the kinds and number of identifiers it named (never the values: only their digests are kept), the records it found or removed per kind and, for a finished export, the document’s link until it expires.',
    errors: [],
  },
  privacyRequestShow: {
    summary: 'Show a privacy request',
    description:
      '`pending` while the job runs, then `done` (or `failed`, with the reason) and the records it found or removed per kind; for an export, the document’s link until it expires.',
    errors: ['not_found'],
  },
  lakeExportCreate: {
    summary: 'Export decided events and feedback',
    description:
      'The merchant’s decided events (orders, returns, signups, logins, account updates) and feedback (disputes, dispositions, resolved reviews) over a range of UTC days, at most 366, as CSV or Parquet: one file set per kind, each row at its latest revision, as the data lake holds it (identities as keyed digests, never raw personal data; docs/lake.md). Answered 202 with `Location` at once; a job then writes the files, within minutes. Audited when asked and when done.',
    errors: [],
    exampleFile: 'lake-export.json',
  },
  lakeExportShow: {
    summary: 'Show an export',
    description:
      '`pending` while the job runs, then `done` with each file’s download link until `expiresAt` (7 days), or `failed` with the reason.',
    errors: ['not_found'],
  },
  backtestCreate: {
    summary: 'Backtest a workflow',
    description:
      'Re-decides the merchant’s stored decisions of one type over a range of UTC days (the last 30 when none is given, at most 366) with a candidate workflow, from the score, signals and fields each decision kept, and reports what would change. The candidate is checked as a save checks it (`invalid_workflow`, nothing recorded). Answered 202 with `Location` at once; a job then reads the window from the data lake: every decision, or a uniform sample of about 200,000 when the window holds more, which `coverage` states.',
    errors: ['invalid_workflow'],
    exampleFile: 'backtest.json',
  },
  backtestShow: {
    summary: 'Show a backtest',
    description:
      '`pending`, then `running` while the job re-decides, then `done` with the report and its `coverage`, or `failed` with the reason. Kept 90 days.',
    errors: ['not_found'],
  },
};
