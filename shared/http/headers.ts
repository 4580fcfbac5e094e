import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  IDEMPOTENCY_KEY_PATTERN,
} from '../contract/endpoints.ts';
import { ApiError } from '../errors.ts';

/** Header lookup without regard to case (API Gateway passes headers as the client sent them). */
export function headerValue(headers: Record<string, string | undefined> | null | undefined, name: string) {
  if (!headers) return undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted) return value;
  }
  return undefined;
}

/** The Idempotency-Key header when present: 1 to 255 printable ASCII characters, else 400. */
export function idempotencyKeyOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!IDEMPOTENCY_KEY_PATTERN.test(value)) {
    throw new ApiError(
      'invalid_request',
      `The ${IDEMPOTENCY_KEY_HEADER} header must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters.`,
      { field: IDEMPOTENCY_KEY_HEADER },
    );
  }
  return value;
}
