import type { APIGatewayProxyEvent } from 'aws-lambda';
import * as z from 'zod';
import { ApiError } from '../errors.ts';
import { pathIdText } from '../schemas/fields.ts';
import { decodePathSegment, parameterName, pathSegments } from './route.ts';
import { validate } from './validation.ts';

/** Path ids are merchant ids like those in bodies: at most 256 characters of well-formed text. */
const pathIdsSchema = z.record(
  z.string(),
  pathIdText().refine((id) => id.isWellFormed(), 'must be valid Unicode text'),
);

/**
 * The ids in a request's path (`{order-id}`, `{return-id}`), read from the path as the client sent
 * it. API Gateway REST APIs pass `path` still percent-encoded and `pathParameters` decoded, but
 * what they put in `pathParameters` for a segment that does not decode is not documented (the raw
 * text, U+FFFD, a lone surrogate...). So each id is decoded here, strictly: a segment that is not
 * percent-encoded UTF-8 is 400 `invalid_request` naming it, and the decoded id is validated like a
 * body id (422 past 256 characters). `pathParameters` serve only when `path` does not line up with
 * the route's template; the last segments are used, so a base-path mapping in front changes nothing.
 */
export function pathParametersOf(
  event: Pick<APIGatewayProxyEvent, 'resource' | 'path' | 'pathParameters'>,
): Record<string, string> {
  const template = pathSegments(event.resource ?? '');
  const sent = pathSegments(event.path ?? '');
  const offset = sent.length - template.length;
  const ids: Record<string, string | undefined> = {};
  for (const [index, segment] of template.entries()) {
    const name = parameterName(segment);
    if (!name) continue;
    const raw = offset >= 0 && event.path ? sent[offset + index] : undefined;
    if (raw === undefined) {
      ids[name] = event.pathParameters?.[name];
      continue;
    }
    const decoded = decodePathSegment(raw);
    if (decoded === undefined) {
      throw new ApiError('invalid_request', `The ${name} in the path is not valid percent-encoded UTF-8.`, {
        field: name,
      });
    }
    ids[name] = decoded;
  }
  return validate(pathIdsSchema, ids);
}
