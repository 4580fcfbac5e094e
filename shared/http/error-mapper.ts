import { ApiError, RecordTooLargeError, StoreUnavailableError } from '../errors.ts';

/**
 * The one place any thrown value becomes an ApiError. Anything unexpected becomes a 500 with no
 * internals in the message; shared/http/middleware/log-context.ts logs it with the request's keys.
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof StoreUnavailableError) {
    return new ApiError(
      'service_unavailable',
      'The service is briefly unavailable; retry after the given delay.',
      {
        headers: { 'Retry-After': '1' },
      },
    );
  }
  if (error instanceof RecordTooLargeError) {
    return new ApiError(
      'payload_too_large',
      'This event is too large to store: its record would pass the 400 KB a stored item may take. Send shorter free text (reasons, notes, titles).',
    );
  }
  // Middy gives up just before the function's timeout, so the caller still gets an answer.
  if (error instanceof Error && error.name === 'TimeoutError') {
    return new ApiError('service_unavailable', 'The request took too long; retry later.', {
      headers: { 'Retry-After': '1' },
    });
  }
  return new ApiError('internal_error', 'An internal error occurred.');
}

/** Errors worth an operator's attention: everything that is not a deliberate API answer. */
export function isUnexpected(error: unknown): boolean {
  return !(error instanceof ApiError || error instanceof RecordTooLargeError);
}
