import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ApiError } from '../errors.ts';
import { headerValue } from './headers.ts';
import { formatPath } from './validation.ts';

/** A request's body before validation: read by the handler as the first step of its work. */

const MAX_BODY_BYTES = 256 * 1024;
/**
 * Deepest nesting of objects and arrays a body may have. No schema needs more than a few levels;
 * free-form values (customData) get this much. Past it, recursive code (validation, canonical
 * hashing, JSON.stringify) would overflow the stack and DynamoDB refuses items nested over 32.
 */
const MAX_JSON_DEPTH = 32;

/**
 * The JSON body within the size limit: a JSON object of bounded depth whose every string is
 * well-formed Unicode.
 */
export function readJsonBody(event: Pick<APIGatewayProxyEvent, 'body' | 'isBase64Encoded'>): unknown {
  const { body, isBase64Encoded } = event;
  const raw = body && isBase64Encoded ? utf8Text(Buffer.from(body, 'base64')) : body;
  if (raw && Buffer.byteLength(raw, 'utf8') > MAX_BODY_BYTES) {
    throw new ApiError('payload_too_large', `The request body exceeds ${MAX_BODY_BYTES} bytes.`);
  }
  if (!raw || raw.trim() === '') throw new ApiError('invalid_request', 'A JSON request body is required.');
  let parsed: unknown;
  try {
    // JSON.parse keeps `__proto__` as an own data property; it never touches a prototype.
    parsed = JSON.parse(raw);
  } catch {
    throw new ApiError('invalid_request', 'The request body is not valid JSON.');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ApiError('invalid_request', 'The request body must be a JSON object.');
  }
  const problem = firstProblem(parsed);
  if (problem) {
    // A field naming an ill-formed key is made well-formed, so the answer is valid Unicode itself.
    const field = formatPath(problem.path).toWellFormed();
    const message =
      problem.kind === 'too_deep'
        ? `${field} nests deeper than ${MAX_JSON_DEPTH} levels.`
        : `${field} contains a lone surrogate (\\u escape of half a character): not valid Unicode text.`;
    throw new ApiError('unprocessable_entity', message, { field });
  }
  return parsed;
}

/** A `text/csv` body within `maxBytes`, as UTF-8 text (a leading byte-order mark is dropped). */
export function readCsvBody(
  event: Pick<APIGatewayProxyEvent, 'body' | 'isBase64Encoded' | 'headers'>,
  maxBytes: number,
): string {
  const { body, isBase64Encoded, headers } = event;
  const contentType = headerValue(headers, 'content-type') ?? '';
  if (!/^text\/csv\b/i.test(contentType)) {
    throw new ApiError('invalid_request', 'Send the file as Content-Type: text/csv.', {
      field: 'Content-Type',
    });
  }
  const bytes = Buffer.from(body ?? '', isBase64Encoded ? 'base64' : 'utf8');
  if (bytes.length > maxBytes) throw new ApiError('payload_too_large', `The file exceeds ${maxBytes} bytes.`);
  let text: string;
  try {
    text = STRICT_UTF8.decode(bytes);
  } catch {
    throw new ApiError('invalid_request', 'The file is not UTF-8 text.');
  }
  if (text.trim() === '') throw new ApiError('invalid_request', 'The file is empty.');
  return text.replace(/^\uFEFF/, '');
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A base64 body's text. Bytes that are not UTF-8 are refused rather than turned into U+FFFD, which
 * would make different ids one (as lone surrogates would, below).
 */
function utf8Text(bytes: Buffer): string {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    throw new ApiError('invalid_request', 'The request body is not valid UTF-8 text.');
  }
}

interface BodyProblem {
  kind: 'too_deep' | 'lone_surrogate';
  path: PropertyKey[];
}

/**
 * The first object or array nested MAX_JSON_DEPTH deep, or the first string (value or key) holding a
 * lone surrogate, in document order. JSON text may escape half a surrogate pair (`"\ud800"`); such a
 * string is not Unicode, and stored as UTF-8 it would become U+FFFD, so two different ids would be
 * one record. Checked here, once for every field of every endpoint. Iterative: any depth is safe.
 */
function firstProblem(root: object): BodyProblem | undefined {
  // Each entry links to its parent, so a path is built only for the problem found, not for every
  // value of every body. `keyIllFormed`: the entry's own key holds a lone surrogate; reported when
  // the entry comes up, so an earlier field's problem is still reported first.
  const pending: PendingValue[] = [{ value: root, key: undefined, parent: undefined, depth: 0 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value } = next;
    if (next.keyIllFormed) return { kind: 'lone_surrogate', path: pathOf(next) };
    if (typeof value === 'string') {
      if (!value.isWellFormed()) return { kind: 'lone_surrogate', path: pathOf(next) };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (next.depth >= MAX_JSON_DEPTH) return { kind: 'too_deep', path: pathOf(next) };
    const depth = next.depth + 1;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) {
        pending.push({ value: value[i], key: i, parent: next, depth });
      }
      continue;
    }
    const object = value as Record<string, unknown>;
    const keys = Object.keys(object);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      const entry: PendingValue = { value: object[key], key, parent: next, depth };
      if (!key.isWellFormed()) entry.keyIllFormed = true;
      pending.push(entry);
    }
  }
  return undefined;
}

interface PendingValue {
  value: unknown;
  /** Its key in its parent; undefined for the body itself. */
  key: PropertyKey | undefined;
  parent: PendingValue | undefined;
  depth: number;
  keyIllFormed?: boolean;
}

function pathOf(entry: PendingValue): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let at: PendingValue | undefined = entry; at?.key !== undefined; at = at.parent) path.push(at.key);
  return path.reverse();
}
