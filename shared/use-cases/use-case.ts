import type { EndpointName, RequestOf, ResponseOf } from '../contract/endpoints.ts';

/**
 * What a use case receives: plain domain values, no HTTP. The handler stack (shared/http) builds it
 * from a request; the admin CLI, a dashboard API or an import job can build it as well.
 */
export interface EndpointCall<TBody> {
  endpoint: EndpointName;
  merchantId: string;
  body: TBody;
  /** The path's named parts: `return-id` for dispositions, `order-id` for disputes. */
  pathParameters: Readonly<Record<string, string>>;
  /** The caller's key for this logical call, on endpoints that honour one (docs/decisions.md). */
  idempotencyKey?: string;
  /** false: record the event but send no webhook (the history import). Default: notify. */
  notify?: boolean;
  /** true when the merchant is in the opt-in network (shared/network/): its decisions read it. */
  network?: boolean;
}

/** What a use case answers: the response body, and whether it is an earlier call's answer replayed. */
export interface Answer<TResponse> {
  response: TResponse;
  replayed: boolean;
}

export type UseCase<TBody, TResponse> = (call: EndpointCall<TBody>) => Promise<Answer<TResponse>>;

/** The use case of a registered endpoint: its body and answer typed by the endpoint's definition. */
export type EndpointUseCase<N extends EndpointName> = UseCase<RequestOf<N>, ResponseOf<N>>;

export const fresh = <T>(response: T): Answer<T> => ({ response, replayed: false });

/**
 * An answer given before, from its stored JSON (written from a typed response by the same use case).
 * Parsing and re-serialising keeps key order, so the client gets the same text as the first time.
 */
export function storedAnswer<T>(stored: { responseJson: string }, replayed: boolean): Answer<T> {
  return { response: JSON.parse(stored.responseJson) as T, replayed };
}
