import createClient from 'openapi-fetch';
import type { components, paths } from './openapi.js';

/**
 * The management API (the merchant console's), typed by the same OpenAPI document. In a browser it
 * rides on the session cookie (no key); a script passes a console key. Calls that change something
 * send the X-Console-Request header, which the API requires of cookie-authenticated changes (CSRF).
 * No retries: a person sees the error (with its request id) and decides.
 */
type Schemas = components['schemas'];
export type ConsoleSession = Schemas['ConsoleSession'];
export type Review = Schemas['Review'];
export type ReviewPage = Schemas['ReviewPage'];
export type ReviewDetail = Schemas['ReviewDetail'];
export type DecisionExplanation = Schemas['DecisionExplanation'];
export type Workflow = Schemas['Workflow'];
export type WorkflowState = Schemas['WorkflowState'];
export type WorkflowValidation = Schemas['WorkflowValidation'];
export type BacktestReport = Schemas['BacktestReport'];
export type Backtest = Schemas['Backtest'];
export type WorkflowVersionPage = Schemas['WorkflowVersionPage'];
export type UploadAccepted = Schemas['DispositionsUploadAccepted'];
export type UploadStatus = Schemas['DispositionsUploadStatus'];
export type Overview = Schemas['Overview'];
export type AuditPage = Schemas['AuditPage'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookSettings = Schemas['WebhookSettings'];
export type WebhookUpdate = Schemas['WebhookUpdate'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type DecisionSettings = Schemas['DecisionSettings'];
export type DecisionSettingValues = Schemas['DecisionSettingValues'];
export type DecisionSettingsChange = Schemas['SettingsSaveRequest'];
export type GoodCustomerGuard = Schemas['GoodCustomerGuard'];
export type TradeoffReport = Schemas['TradeoffReport'];
export type ListEntry = Schemas['ListEntry'];
export type ListEntryPage = Schemas['ListEntryPage'];
export type ListEntryRequest = Schemas['ListEntryAddRequest'];
export type ListRules = Schemas['ListRules'];
export type NetworkMembership = Schemas['NetworkMembership'];
export type PrivacyRequest = Schemas['PrivacyRequest'];
export type PrivacyRequestBody = Schemas['PrivacyRequestCreateRequest'];
export type ConsoleEventType = Review['eventType'];
export type ErrorDetail = NonNullable<Schemas['ErrorEnvelope']['error']['details']>[number];

export const CONSOLE_REQUEST_HEADER = 'X-Console-Request';

/** A refused or failed call: the API's code, words and request id, and every listed problem. */
export class ConsoleApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly requestId: string | undefined;
  readonly field: string | undefined;
  readonly details: readonly ErrorDetail[];

  constructor(status: number, envelope: Schemas['ErrorEnvelope']['error'] | undefined, requestId?: string) {
    super(envelope?.message ?? `HTTP ${status}`);
    this.name = 'ConsoleApiError';
    this.status = status;
    this.code = envelope?.code ?? 'unknown';
    this.requestId = envelope?.requestId ?? requestId;
    this.field = envelope?.field;
    this.details = envelope?.details ?? [];
  }
}

export interface ConsoleClientOptions {
  /** '' in the dashboard (same origin); the API's base address in a script. */
  baseUrl: string;
  /** A console key, for scripts; the dashboard signs in once and then uses the cookie. */
  apiKey?: string;
  fetch?: (request: Request) => Promise<Response>;
}

export function createConsoleClient(options: ConsoleClientOptions) {
  const api = createClient<paths>({
    baseUrl: options.baseUrl,
    credentials: 'same-origin',
    headers: {
      [CONSOLE_REQUEST_HEADER]: '1',
      ...(options.apiKey ? { Authorization: options.apiKey } : {}),
    },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });

  async function answer<T>(outcome: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
    const { data, error, response } = await outcome;
    if (response.ok && data !== undefined) return data;
    const envelope = (error as Schemas['ErrorEnvelope'] | undefined)?.error;
    throw new ConsoleApiError(response.status, envelope, response.headers.get('x-request-id') ?? undefined);
  }

  type ReviewQuery = paths['/v1/reviews']['get']['parameters']['query'];
  type ListQuery = paths['/v1/lists']['get']['parameters']['query'];
  type Type = ConsoleEventType;

  return {
    /** Exchanges a console key for the session cookie. */
    signIn: (consoleKey: string) =>
      answer(api.POST('/v1/console/session', { headers: { Authorization: consoleKey } })),
    signOut: () => answer(api.DELETE('/v1/console/session')),
    reviews: (query: ReviewQuery = {}) => answer(api.GET('/v1/reviews', { params: { query } })),
    review: (reviewId: string) =>
      answer(api.GET('/v1/reviews/{review-id}', { params: { path: { 'review-id': reviewId } } })),
    resolveReview: (reviewId: string, body: { outcome: 'abuse' | 'legitimate'; note?: string }) =>
      answer(
        api.POST('/v1/reviews/{review-id}/resolve', {
          params: { path: { 'review-id': reviewId } },
          body,
        }),
      ),
    decision: (type: Type, id: string) =>
      answer(api.GET('/v1/decisions/{type}/{id}', { params: { path: { type, id } } })),
    workflow: (type: Type) => answer(api.GET('/v1/workflows/{type}', { params: { path: { type } } })),
    saveWorkflow: (type: Type, workflow: unknown) =>
      answer(api.PUT('/v1/workflows/{type}', { params: { path: { type } }, body: { workflow } })),
    validateWorkflow: (type: Type, workflow: unknown) =>
      answer(api.POST('/v1/workflows/{type}/validate', { params: { path: { type } }, body: { workflow } })),
    /** Starts a candidate's backtest over a window of days (the last 30 when none is given). */
    startBacktest: (type: Type, workflow: unknown, window: { from?: string; to?: string } = {}) =>
      answer(api.POST('/v1/backtests', { body: { eventType: type, workflow, ...window } })),
    /** A backtest's job: status, then its report (poll until `done` or `failed`). */
    backtest: (backtestId: string) =>
      answer(api.GET('/v1/backtests/{backtest-id}', { params: { path: { 'backtest-id': backtestId } } })),
    workflowVersions: (type: Type, cursor?: string) =>
      answer(
        api.GET('/v1/workflows/{type}/versions', {
          params: { path: { type }, query: cursor ? { cursor } : {} },
        }),
      ),
    uploadDispositions: (csv: string) =>
      answer(
        api.POST('/v1/return/dispositions/upload', {
          body: csv,
          headers: { 'Content-Type': 'text/csv' },
          bodySerializer: (text: string) => text,
        }),
      ),
    /** An accepted upload's job: status and progress (poll until `done` or `failed`). */
    upload: (uploadId: string) =>
      answer(
        api.GET('/v1/return/dispositions/uploads/{upload-id}', {
          params: { path: { 'upload-id': uploadId } },
        }),
      ),
    overview: (query: { from?: string; to?: string } = {}) =>
      answer(api.GET('/v1/overview', { params: { query } })),
    audit: (cursor?: string) => answer(api.GET('/v1/audit', { params: { query: cursor ? { cursor } : {} } })),
    /** An event type's decision settings, the guard in force and today's reviews. */
    settings: (type: Type) => answer(api.GET('/v1/settings/{type}', { params: { path: { type } } })),
    /** Replaces the type's settings (one left out takes its default). */
    saveSettings: (type: Type, body: DecisionSettingsChange) =>
      answer(api.PUT('/v1/settings/{type}', { params: { path: { type } }, body })),
    tradeoffs: (type: Type) => answer(api.GET('/v1/tradeoffs/{type}', { params: { path: { type } } })),
    webhooks: () => answer(api.GET('/v1/webhooks')),
    createWebhook: (body: WebhookSettings) => answer(api.POST('/v1/webhooks', { body })),
    updateWebhook: (webhookId: string, body: WebhookUpdate) =>
      answer(api.PATCH('/v1/webhooks/{webhook-id}', { params: { path: { 'webhook-id': webhookId } }, body })),
    deleteWebhook: (webhookId: string) =>
      answer(api.DELETE('/v1/webhooks/{webhook-id}', { params: { path: { 'webhook-id': webhookId } } })),
    rotateWebhookSecret: (webhookId: string) =>
      answer(
        api.POST('/v1/webhooks/{webhook-id}/rotate-secret', {
          params: { path: { 'webhook-id': webhookId } },
        }),
      ),
    testWebhook: (webhookId: string) =>
      answer(api.POST('/v1/webhooks/{webhook-id}/test', { params: { path: { 'webhook-id': webhookId } } })),
    webhookDeliveries: (webhookId: string) =>
      answer(
        api.GET('/v1/webhooks/{webhook-id}/deliveries', { params: { path: { 'webhook-id': webhookId } } }),
      ),
    redeliverWebhook: (webhookId: string, deliveryId: string) =>
      answer(
        api.POST('/v1/webhooks/{webhook-id}/deliveries/{delivery-id}/redeliver', {
          params: { path: { 'webhook-id': webhookId, 'delivery-id': deliveryId } },
        }),
      ),
    /** Block, watch and allow list entries, newest first. */
    listEntries: (query: ListQuery = {}) => answer(api.GET('/v1/lists', { params: { query } })),
    addListEntry: (body: ListEntryRequest) => answer(api.POST('/v1/lists', { body })),
    listEntry: (entryId: string) =>
      answer(api.GET('/v1/lists/{entry-id}', { params: { path: { 'entry-id': entryId } } })),
    removeListEntry: (entryId: string) =>
      answer(api.DELETE('/v1/lists/{entry-id}', { params: { path: { 'entry-id': entryId } } })),
    listRules: () => answer(api.GET('/v1/list-rules')),
    saveListRules: (rules: ListRules) => answer(api.PUT('/v1/list-rules', { body: rules })),
    /** Membership of the opt-in network: whether the merchant contributes to it and reads it. */
    network: () => answer(api.GET('/v1/network')),
    saveNetwork: (enabled: boolean) => answer(api.PUT('/v1/network', { body: { enabled } })),
    /** Erase or export one customer: accepted at once (`pending`), run by the privacy worker. */
    requestPrivacy: (body: PrivacyRequestBody) => answer(api.POST('/v1/privacy/requests', { body })),
    /** The merchant's privacy requests, newest first. */
    privacyRequests: (cursor?: string) =>
      answer(api.GET('/v1/privacy/requests', { params: { query: cursor ? { cursor } : {} } })),
  };
}

export type ConsoleClient = ReturnType<typeof createConsoleClient>;
