/**
 * One request of simulated live traffic: what is sent, to which endpoint, and when it reaches the
 * service (the server's clock at that moment). Every event here is an honest customer's.
 */
export type EventKind = 'signup' | 'login' | 'order' | 'return' | 'disposition' | 'dispute' | 'account';
export type ScoredKind = Exclude<EventKind, 'disposition' | 'dispute'>;

export const SCORED_KINDS: readonly ScoredKind[] = ['signup', 'login', 'order', 'return', 'account'];

export interface Delivery {
  /** When it arrives (epoch ms): the server's clock is set to it. */
  at: number;
  kind: EventKind;
  body: object;
  /** The return id of a disposition, the order id of a dispute. */
  pathId?: string;
  /** Sent as `Idempotency-Key` where the endpoint honours one, as the typed client does. */
  idempotencyKey?: string;
  /** The honest behaviour it belongs to (e.g. `household`, `launch-burst`): read in failure reports. */
  cohort: string;
  /** Order of creation: breaks ties between events of the same millisecond. */
  seq: number;
}

const PATHS: Record<EventKind, (id: string) => string> = {
  signup: () => '/v1/evaluate/signup',
  login: () => '/v1/evaluate/login',
  order: () => '/v1/order',
  return: () => '/v1/return',
  disposition: (id) => `/v1/return/disposition/${encodeURIComponent(id)}`,
  dispute: (id) => `/v1/order/dispute/${encodeURIComponent(id)}`,
  account: () => '/v1/evaluate/account',
};

export function pathOf(delivery: Delivery): string {
  return PATHS[delivery.kind](delivery.pathId ?? '');
}

export function isScored(kind: EventKind): kind is ScoredKind {
  return (SCORED_KINDS as readonly string[]).includes(kind);
}

/** In arrival order; events of one millisecond in the order they were made. */
export function inArrivalOrder(deliveries: readonly Delivery[]): Delivery[] {
  return [...deliveries].sort((a, b) => a.at - b.at || a.seq - b.seq);
}
