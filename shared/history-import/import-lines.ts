import * as z from 'zod';
import type { EndpointName } from '../contract/endpoints.ts';
import { keyedDigests } from '../digests/identity-digests.ts';
import { ApiError } from '../errors.ts';
import { toApiError, validate } from '../http/validation.ts';
import {
  identitiesOfAccountUpdate,
  identitiesOfLogin,
  identitiesOfSignup,
} from '../identity/account-identities.ts';
import { deviceIdentities } from '../identity/contact-identities.ts';
import { identityId } from '../identity/identity-ids.ts';
import { identitiesOfOrder } from '../identity/order-identities.ts';
import { type AccountRequest, accountRequestSchema } from '../schemas/account.ts';
import { type DispositionRequest, dispositionRequestSchema } from '../schemas/disposition.ts';
import { type DisputeRequest, disputeRequestSchema } from '../schemas/dispute.ts';
import { type LoginRequest, loginRequestSchema } from '../schemas/login.ts';
import { type OrderRequest, orderRequestSchema } from '../schemas/order.ts';
import { type ReturnRequest, returnRequestSchema } from '../schemas/return.ts';
import { type SignupRequest, signupRequestSchema } from '../schemas/signup.ts';
import { canonicalJson, sha256Hex } from '../store/canonical.ts';

/**
 * One line of a history file: `{"type", "body", "returnId"|"orderId"}`, the body exactly as the
 * endpoint takes it. Parsing validates every line with the endpoint's own schema and reports each
 * bad line with its number and field; nothing runs unless every line is good.
 */
const IMPORT_TYPES = ['order', 'return', 'disposition', 'dispute', 'signup', 'login', 'account'] as const;
export type ImportType = (typeof IMPORT_TYPES)[number];

const lineSchema = z.strictObject({
  type: z.enum(IMPORT_TYPES),
  body: z.unknown(),
  returnId: z.string().min(1).max(256).optional(),
  orderId: z.string().min(1).max(256).optional(),
});

interface Bodies {
  order: OrderRequest;
  return: ReturnRequest;
  disposition: DispositionRequest;
  dispute: DisputeRequest;
  signup: SignupRequest;
  login: LoginRequest;
  account: AccountRequest;
}

export type ImportEvent = {
  [T in ImportType]: {
    type: T;
    endpoint: EndpointName;
    body: Bodies[T];
    pathParameters: Record<string, string>;
    /** 1-based line number in the file. */
    line: number;
    /** When it happened: what it is sorted by and run at. */
    at: number;
    /** Seed of its service ids: the same line imports to the same items, however often it is run. */
    idSeed: string;
    /** Records and identities it reads or writes: events sharing one run in file-time order. */
    touches: string[];
  };
}[ImportType];

export interface LineProblem {
  line: number;
  code: string;
  field?: string;
  message: string;
}

const SCHEMAS = {
  order: orderRequestSchema,
  return: returnRequestSchema,
  disposition: dispositionRequestSchema,
  dispute: disputeRequestSchema,
  signup: signupRequestSchema,
  login: loginRequestSchema,
  account: accountRequestSchema,
} satisfies { [T in ImportType]: z.ZodType<Bodies[T]> };

/** The path id each endpoint takes, as the line names it. */
const PATH_ID: Partial<Record<ImportType, { line: 'returnId' | 'orderId'; path: string }>> = {
  disposition: { line: 'returnId', path: 'return-id' },
  dispute: { line: 'orderId', path: 'order-id' },
};

/**
 * Every line validated, then sorted by event time (file order among equal times). A disposition
 * carries no time: it takes the time of the line before it in the file, so it stays where the
 * merchant put it, after the return it judges.
 */
export function parseImportFile(text: string): { events: ImportEvent[]; problems: LineProblem[] } {
  const events: ImportEvent[] = [];
  const problems: LineProblem[] = [];
  const seen = new Map<string, number>();
  let previousAt: number | undefined;
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    try {
      const event = parseLine(raw, line, previousAt, seen);
      previousAt = event.at;
      events.push(event);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      problems.push({
        line,
        code: error.code,
        ...(error.field !== undefined ? { field: error.field } : {}),
        message: error.message,
      });
    }
  });
  linkToOrders(events);
  events.sort((a, b) => a.at - b.at || a.line - b.line);
  return { events, problems };
}

function parseLine(
  raw: string,
  line: number,
  previousAt: number | undefined,
  seen: Map<string, number>,
): ImportEvent {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new ApiError('invalid_request', 'The line is not JSON.');
  }
  const parsed = lineSchema.safeParse(json, { reportInput: true });
  if (!parsed.success) throw toApiError(parsed.error.issues);
  const { type } = parsed.data;
  const pathId = PATH_ID[type];
  const pathParameters: Record<string, string> = {};
  if (pathId) {
    const id = parsed.data[pathId.line];
    if (id === undefined)
      throw new ApiError('invalid_request', `${pathId.line} is required.`, { field: pathId.line });
    pathParameters[pathId.path] = id;
  }
  let body: Bodies[ImportType];
  try {
    body = validate(SCHEMAS[type] as z.ZodType<Bodies[ImportType]>, parsed.data.body);
  } catch (error) {
    if (error instanceof ApiError && error.field !== undefined) {
      throw new ApiError(error.code, error.message, { field: `body.${error.field}` });
    }
    throw error;
  }
  const at = eventTimeOf(type, body, previousAt);
  // Two identical lines are two events (two failed logins in one millisecond): number the repeats.
  const digest = sha256Hex(canonicalJson(json));
  const occurrence = seen.get(digest) ?? 0;
  seen.set(digest, occurrence + 1);
  return {
    type,
    endpoint: type,
    body,
    pathParameters,
    line,
    at,
    idSeed: `${digest}#${occurrence}`,
    touches: touchesOf(type, body, pathParameters),
  } as ImportEvent;
}

function eventTimeOf(type: ImportType, body: Bodies[ImportType], previousAt: number | undefined): number {
  if (type === 'disposition') {
    if (previousAt === undefined)
      throw new ApiError(
        'invalid_request',
        'A disposition needs a timed line before it (it carries no time).',
      );
    return previousAt;
  }
  if (type === 'dispute') return Math.max(...(body as DisputeRequest).dispute.map((d) => d.timestamp));
  const timestamp = (body as { timestamp?: string }).timestamp;
  if (timestamp === undefined) {
    // Live, a signup or login without a time happened when it arrived; history has no such moment.
    throw new ApiError('invalid_request', 'body.timestamp is required when importing.', {
      field: 'body.timestamp',
    });
  }
  return Number(timestamp);
}

/**
 * Touches only tell which lines of one file share an identity (so they run in order): any key does,
 * and a fixed one keeps them the same from run to run. They are never stored as digests.
 */
const touchDigests = keyedDigests(Buffer.from('history-import-touches'));

function touchesOf(type: ImportType, body: Bodies[ImportType], path: Record<string, string>): string[] {
  switch (type) {
    case 'order': {
      const order = body as OrderRequest;
      return [
        `order:${order.providerOrderId}`,
        ...identitiesOfOrder(order, touchDigests).all.map(identityId),
      ];
    }
    case 'return': {
      const returned = body as ReturnRequest;
      return [
        `order:${returned.providerOrderId}`,
        `return:${returned.providerReturnId}`,
        ...deviceIdentities(touchDigests, returned.deviceFingerprints).map(identityId),
      ];
    }
    case 'disposition':
      return [`return:${path['return-id']}`];
    case 'dispute':
      return [`order:${path['order-id']}`];
    case 'signup': {
      const signup = body as SignupRequest;
      return [`signup:${signup.customerId}`, ...identitiesOfSignup(signup, touchDigests).all.map(identityId)];
    }
    case 'login':
      return identitiesOfLogin(body as LoginRequest, touchDigests).all.map(identityId);
    case 'account':
      return identitiesOfAccountUpdate(body as AccountRequest, touchDigests).all.map(identityId);
  }
}

/** Touched by an event whose identities the file cannot tell: it runs alone, between the others. */
export const EVERYTHING = '*';

/**
 * Returns, dispositions and disputes read and move the history of their order's identities, which
 * their own lines do not name: they touch what the order line touches. When the order is not in the
 * file (imported before), its identities are unknown, so the event touches everything.
 */
function linkToOrders(events: ImportEvent[]): void {
  const byOrder = new Map<string, string[]>();
  const orderOfReturn = new Map<string, string>();
  for (const event of events) {
    if (event.type === 'order') byOrder.set(event.body.providerOrderId, event.touches);
    if (event.type === 'return') orderOfReturn.set(event.body.providerReturnId, event.body.providerOrderId);
  }
  for (const event of events) {
    const orderId =
      event.type === 'return'
        ? event.body.providerOrderId
        : event.type === 'dispute'
          ? event.pathParameters['order-id']
          : event.type === 'disposition'
            ? orderOfReturn.get(event.pathParameters['return-id'] ?? '')
            : undefined;
    if (event.type !== 'return' && event.type !== 'dispute' && event.type !== 'disposition') continue;
    const orderTouches = orderId !== undefined ? byOrder.get(orderId) : undefined;
    event.touches = orderTouches ? [...new Set([...event.touches, ...orderTouches])] : [EVERYTHING];
  }
}
