import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ApiError } from '../../errors.ts';
import type { ApiContext } from '../api-context.ts';
import { headerValue } from '../headers.ts';

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A `text/csv` body within `maxBytes`, as UTF-8 text (a leading byte-order mark is dropped). */
export function csvBody(
  maxBytes: number,
): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, ApiContext> {
  return {
    before: (request) => {
      const { body, isBase64Encoded, headers } = request.event;
      const contentType = headerValue(headers, 'content-type') ?? '';
      if (!/^text\/csv\b/i.test(contentType)) {
        throw new ApiError('invalid_request', 'Send the file as Content-Type: text/csv.', {
          field: 'Content-Type',
        });
      }
      const bytes = Buffer.from(body ?? '', isBase64Encoded ? 'base64' : 'utf8');
      if (bytes.length > maxBytes) {
        throw new ApiError('payload_too_large', `The file exceeds ${maxBytes} bytes.`);
      }
      let text: string;
      try {
        text = STRICT_UTF8.decode(bytes);
      } catch {
        throw new ApiError('invalid_request', 'The file is not UTF-8 text.');
      }
      if (text.trim() === '') throw new ApiError('invalid_request', 'The file is empty.');
      request.context.parsedBody = text.replace(/^\uFEFF/, '');
    },
  };
}
