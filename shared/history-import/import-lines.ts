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
import { type FileLine, type FilePosition, MAX_LINE_BYTES } from './file-lines.ts';

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
    /** Where a later run starts reading to import this line again: the first line at its time. */
    readFrom: FilePosition;
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
 * Reads a history file line by line, in file order, holding only what the next lines need: the
 * time of the line before (a disposition carries none; times may not go back), the seeds given to
 * identical lines at the current time, and the touches of recent orders. A file of any size is
 * read in bounded memory, and a later run can start again at `runStart` with the same results.
 *
 * Lines must come in event-time order (a disposition right after the return it judges): a file of
 * any size cannot be sorted in one function's memory, and a merchant's export can order its rows.
 */
export class HistoryLineReader {
  private previousAt: number | undefined;
  /** Identical lines at the current time, counted so that each gets its own seed. */
  private readonly seen = new Map<string, number>();
  private readonly orderTouches = new RecentMap<string, string[]>(ORDERS_REMEMBERED);
  private readonly orderOfReturn = new RecentMap<string, string>(ORDERS_REMEMBERED);
  private start: FilePosition;
  private readonly linking: boolean;

  /**
   * `from` is the first line of a run of lines at one time (or of the file). Without `touches`
   * (validation only) events touch nothing and no order is remembered: what is read is checked only.
   */
  constructor(from: FilePosition, options: { touches: boolean } = { touches: true }) {
    this.start = from;
    this.linking = options.touches;
  }

  /** The first line of the run of lines at the time of the last line read: a safe place to start again. */
  get runStart(): FilePosition {
    return this.start;
  }

  /** The line as an event to import; a blank line is undefined; a bad one throws ApiError. */
  read(raw: FileLine): ImportEvent | undefined {
    if (raw.text === undefined) {
      throw new ApiError('invalid_request', `The line is longer than ${MAX_LINE_BYTES} bytes.`);
    }
    if (raw.text.trim() === '') return undefined;
    const { json, type, body, pathParameters } = parseLine(raw.text);
    const at = this.timeOf(type, body);
    if (at !== this.previousAt) {
      this.start = { byte: raw.byte, line: raw.line };
      this.seen.clear();
    }
    this.previousAt = at;
    // Two identical lines are two events (two failed logins in one millisecond): number the repeats.
    // Identical lines share their time, so the count starts again at each new time.
    const digest = sha256Hex(canonicalJson(json));
    const occurrence = this.seen.get(digest) ?? 0;
    this.seen.set(digest, occurrence + 1);
    const event = {
      type,
      endpoint: type,
      body,
      pathParameters,
      line: raw.line,
      at,
      idSeed: `${digest}#${occurrence}`,
      touches: this.linking
        ? this.linkToOrder(type, body, pathParameters, touchesOf(type, body, pathParameters))
        : [],
      readFrom: this.start,
    } as ImportEvent;
    return event;
  }

  private timeOf(type: ImportType, body: Bodies[ImportType]): number {
    const at = eventTimeOf(type, body, this.previousAt);
    if (this.previousAt !== undefined && at < this.previousAt) {
      throw new ApiError(
        'invalid_request',
        `Lines must be in event-time order: this line is at ${new Date(at).toISOString()}, before the line above it (${new Date(this.previousAt).toISOString()}).`,
        { field: type === 'dispute' ? 'body.dispute' : 'body.timestamp' },
      );
    }
    return at;
  }

  /**
   * Returns, dispositions and disputes read and move the history of their order's identities, which
   * their own lines do not name: they touch what the order line touches. When the order is not
   * among the recent lines (imported before, or long ago in the file), its identities are unknown,
   * so the event touches everything.
   */
  private linkToOrder(
    type: ImportType,
    body: Bodies[ImportType],
    path: Record<string, string>,
    touches: string[],
  ): string[] {
    let orderId: string | undefined;
    if (type === 'order') {
      this.orderTouches.set((body as OrderRequest).providerOrderId, touches);
      return touches;
    }
    if (type === 'return') {
      const returned = body as ReturnRequest;
      this.orderOfReturn.set(returned.providerReturnId, returned.providerOrderId);
      orderId = returned.providerOrderId;
    } else if (type === 'dispute') orderId = path['order-id'];
    else if (type === 'disposition') orderId = this.orderOfReturn.get(path['return-id'] ?? '');
    else return touches;
    const orderTouches = orderId !== undefined ? this.orderTouches.get(orderId) : undefined;
    return orderTouches ? [...new Set([...touches, ...orderTouches])] : [EVERYTHING];
  }
}

/**
 * Orders (and returns) remembered for linking: a return usually comes days after its order, a few
 * hundred thousand lines later for a large merchant; each entry is well under a kilobyte.
 */
const ORDERS_REMEMBERED = 200_000;

/** A map that forgets its oldest entries past `size`. */
class RecentMap<K, V> {
  private readonly entries = new Map<K, V>();
  private readonly size: number;

  constructor(size: number) {
    this.size = size;
  }

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value as K);
  }
}

/** A history held as text (tests, the benchmark, the eval's first day): every line read in file order. */
export function parseImportFile(text: string): { events: ImportEvent[]; problems: LineProblem[] } {
  const events: ImportEvent[] = [];
  const problems: LineProblem[] = [];
  const reader = new HistoryLineReader({ byte: 0, line: 1 });
  let byte = 0;
  text.split('\n').forEach((line, index) => {
    const next = byte + Buffer.byteLength(line) + 1;
    try {
      const event = reader.read({ text: line, byte, line: index + 1, next });
      if (event) events.push(event);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      problems.push(problemOf(index + 1, error));
    }
    byte = next;
  });
  return { events, problems };
}

/** A bad line's problem, as reported: its number, the error's code and field. */
export function problemOf(line: number, error: ApiError): LineProblem {
  return {
    line,
    code: error.code,
    ...(error.field !== undefined ? { field: error.field } : {}),
    message: error.message,
  };
}

function parseLine(raw: string) {
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
  return { json, type, body, pathParameters };
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
