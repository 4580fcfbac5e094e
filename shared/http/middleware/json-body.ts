import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ApiError } from '../../errors.ts';
import type { ApiContext } from '../api-context.ts';
import { formatPath } from '../validation.ts';

export const MAX_BODY_BYTES = 256 * 1024;
/**
 * Deepest nesting of objects and arrays a body may have. No schema needs more than a few levels;
 * free-form values (customData) get this much. Past it, recursive code (validation, canonical
 * hashing, JSON.stringify) would overflow the stack and DynamoDB refuses items nested over 32.
 */
export const MAX_JSON_DEPTH = 32;

/** Enforces the body size limit, then parses JSON; the body must be a JSON object of bounded depth. */
export function jsonBody(): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, ApiContext> {
  return {
    before: (request) => {
      const { body, isBase64Encoded } = request.event;
      const raw = body && isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
      if (raw && Buffer.byteLength(raw, 'utf8') > MAX_BODY_BYTES) {
        throw new ApiError('payload_too_large', `The request body exceeds ${MAX_BODY_BYTES} bytes.`);
      }
      if (!raw || raw.trim() === '')
        throw new ApiError('invalid_request', 'A JSON request body is required.');
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
      const tooDeep = firstTooDeep(parsed);
      if (tooDeep) {
        const field = formatPath(tooDeep);
        throw new ApiError('unprocessable_entity', `${field} nests deeper than ${MAX_JSON_DEPTH} levels.`, {
          field,
        });
      }
      request.context.parsedBody = parsed;
    },
  };
}

/** Path of the first object or array nested MAX_JSON_DEPTH deep; iterative, so any depth is safe. */
function firstTooDeep(root: object): PropertyKey[] | undefined {
  const pending: { value: unknown; path: PropertyKey[] }[] = [{ value: root, path: [] }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value, path } = next;
    if (value === null || typeof value !== 'object') continue;
    if (path.length >= MAX_JSON_DEPTH) return path;
    const children: [PropertyKey, unknown][] = Array.isArray(value)
      ? value.map((child, index) => [index, child])
      : Object.entries(value);
    for (let i = children.length - 1; i >= 0; i--) {
      const [key, child] = children[i]!;
      pending.push({ value: child, path: [...path, key] });
    }
  }
  return undefined;
}
