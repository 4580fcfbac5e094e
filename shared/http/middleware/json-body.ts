import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ApiError } from '../../errors.ts';
import type { ApiContext } from '../api-context.ts';

export const MAX_BODY_BYTES = 256 * 1024;

/** Enforces the body size limit, then parses JSON; the body must be a JSON object. */
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
        parsed = JSON.parse(raw);
      } catch {
        throw new ApiError('invalid_request', 'The request body is not valid JSON.');
      }
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
        throw new ApiError('invalid_request', 'The request body must be a JSON object.');
      }
      request.context.parsedBody = parsed;
    },
  };
}
