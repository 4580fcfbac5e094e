import createClient from 'openapi-fetch';
import type { components, paths } from './openapi.js';
import { type CallRecord, defaultTiming, type RetryTiming, retryingFetch } from './retry.js';

export { MAX_ATTEMPTS, RETRIED_STATUSES, retryDelayMs } from './retry.js';

type Schemas = components['schemas'];
export type OrderRequest = Schemas['OrderRequest'];
export type OrderResponse = Schemas['OrderResponse'];
export type ReturnRequest = Schemas['ReturnRequest'];
export type ReturnResponse = Schemas['ReturnResponse'];
export type DispositionRequest = Schemas['DispositionRequest'];
export type DispositionResponse = Schemas['DispositionResponse'];
export type DisputeRequest = Schemas['DisputeRequest'];
export type DisputeResponse = Schemas['DisputeResponse'];
export type SignupRequest = Schemas['SignupRequest'];
export type SignupResponse = Schemas['SignupResponse'];
export type LoginRequest = Schemas['LoginRequest'];
export type LoginResponse = Schemas['LoginResponse'];
export type AccountRequest = Schemas['AccountRequest'];
export type AccountResponse = Schemas['AccountResponse'];
export type Decision = Schemas['Decision'];
export type ErrorEnvelope = Schemas['ErrorEnvelope'];

/**
 * A retried order answered 409 `duplicate_order`: an earlier attempt recorded it, so the contract
 * (4.1) says to treat it as success. The decision itself is not in this answer.
 */
export interface OrderAlreadyRecorded {
  alreadyRecorded: true;
  providerOrderId: string;
  requestId: string | undefined;
}

/** A call that failed: the API's last `error.code` and `requestId`, and how many attempts it took. */
export class AbuseDecisionError extends Error {
  readonly status: number | undefined;
  readonly code: string;
  readonly requestId: string | undefined;
  readonly field: string | undefined;
  readonly attempts: number;

  constructor(
    message: string,
    details: {
      status?: number;
      code: string;
      requestId?: string;
      field?: string;
      attempts: number;
      cause?: unknown;
    },
  ) {
    super(message, { cause: details.cause });
    this.name = 'AbuseDecisionError';
    this.status = details.status;
    this.code = details.code;
    this.requestId = details.requestId;
    this.field = details.field;
    this.attempts = details.attempts;
  }
}

export interface ClientOptions {
  /** The environment's base address, e.g. https://sandbox.api.abuse-decision.example */
  baseUrl: string;
  /** `pk_test_…` (sandbox) or `pk_live_…` (production). */
  apiKey: string;
  /** The transport; globalThis.fetch by default. */
  fetch?: (request: Request) => Promise<Response>;
  /** How retries wait; tests replace it. */
  timing?: Partial<RetryTiming>;
  /** Makes the Idempotency-Key of a logical call; crypto.randomUUID by default. */
  newIdempotencyKey?: () => string;
}

export interface AbuseDecisionClient {
  order(body: OrderRequest): Promise<OrderResponse | OrderAlreadyRecorded>;
  return(body: ReturnRequest): Promise<ReturnResponse>;
  disposition(returnId: string, body: DispositionRequest): Promise<DispositionResponse>;
  dispute(orderId: string, body: DisputeRequest): Promise<DisputeResponse>;
  signup(body: SignupRequest): Promise<SignupResponse>;
  login(body: LoginRequest): Promise<LoginResponse>;
  account(body: AccountRequest): Promise<AccountResponse>;
}

type Outcome<T> = { data?: T; error?: unknown; response: Response };

/**
 * One method per endpoint, typed by the OpenAPI document. Every call is retried as docs/api.md says;
 * login, account, disposition and dispute calls carry an Idempotency-Key made once per call and
 * sent unchanged on each retry, so a retry never counts twice.
 */
export function createAbuseDecisionClient(options: ClientOptions): AbuseDecisionClient {
  const timing: RetryTiming = { ...defaultTiming, ...options.timing };
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const newKey = options.newIdempotencyKey ?? (() => crypto.randomUUID());
  const api = createClient<paths>({ baseUrl: options.baseUrl, headers: { Authorization: options.apiKey } });

  /** Runs one logical call through the retrying transport and turns a failure into AbuseDecisionError. */
  async function call<T>(
    run: (fetch: (request: Request) => Promise<Response>) => Promise<Outcome<T>>,
    onError?: (envelope: ErrorEnvelope['error'] | undefined, record: CallRecord) => T | undefined,
  ): Promise<T> {
    const record: CallRecord = { attempts: 0 };
    let outcome: Outcome<T>;
    try {
      outcome = await run(retryingFetch(send, timing, record));
    } catch (error) {
      throw new AbuseDecisionError(`No answer after ${record.attempts} attempts: ${String(error)}`, {
        code: 'network_error',
        attempts: record.attempts,
        cause: error,
      });
    }
    if (outcome.data !== undefined && outcome.response.ok) return outcome.data;
    const envelope = (outcome.error as ErrorEnvelope | undefined)?.error;
    const recovered = onError?.(envelope, record);
    if (recovered !== undefined) return recovered;
    throw new AbuseDecisionError(envelope?.message ?? `HTTP ${outcome.response.status}`, {
      status: outcome.response.status,
      code: envelope?.code ?? 'unknown',
      requestId: envelope?.requestId ?? outcome.response.headers.get('x-request-id') ?? undefined,
      ...(envelope?.field !== undefined ? { field: envelope.field } : {}),
      attempts: record.attempts,
    });
  }

  /** A call with an Idempotency-Key: made once here, so every retry of the call sends the same key. */
  function keyed<T>(
    run: (
      header: { 'Idempotency-Key': string },
      fetch: (r: Request) => Promise<Response>,
    ) => Promise<Outcome<T>>,
  ): Promise<T> {
    const header = { 'Idempotency-Key': newKey() };
    return call((fetch) => run(header, fetch));
  }

  return {
    order: (body) =>
      call<OrderResponse | OrderAlreadyRecorded>(
        (fetch) => api.POST('/v1/order', { body, fetch }),
        (envelope, record) =>
          record.attempts > 1 && envelope?.code === 'duplicate_order'
            ? { alreadyRecorded: true, providerOrderId: body.providerOrderId, requestId: envelope.requestId }
            : undefined,
      ),
    return: (body) => call((fetch) => api.POST('/v1/return', { body, fetch })),
    disposition: (returnId, body) =>
      keyed((header, fetch) =>
        api.POST('/v1/return/disposition/{return-id}', {
          params: { path: { 'return-id': returnId }, header },
          body,
          fetch,
        }),
      ),
    dispute: (orderId, body) =>
      keyed((header, fetch) =>
        api.POST('/v1/order/dispute/{order-id}', {
          params: { path: { 'order-id': orderId }, header },
          body,
          fetch,
        }),
      ),
    signup: (body) => call((fetch) => api.POST('/v1/evaluate/signup', { body, fetch })),
    login: (body) =>
      keyed((header, fetch) => api.POST('/v1/evaluate/login', { params: { header }, body, fetch })),
    account: (body) =>
      keyed((header, fetch) => api.POST('/v1/evaluate/account', { params: { header }, body, fetch })),
  };
}

export * from './console.js';
export {
  type VerifyOptions,
  verifyWebhook,
  type WebhookEvent,
  type WebhookHeaders,
  WebhookVerificationError,
} from './webhooks.js';
