import { ApiError, StoreUnavailableError } from '../errors.ts';
import { logger } from '../observability.ts';

/**
 * The one place any thrown value becomes an ApiError. Unexpected errors are logged (name and stack
 * only, never request data) and answered as 500 with nothing internal in the message.
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof StoreUnavailableError) {
    logger.warn('store unavailable after retries', { errorName: error.name });
    return new ApiError(
      'service_unavailable',
      'The service is briefly unavailable; retry after the given delay.',
      {
        headers: { 'Retry-After': '1' },
      },
    );
  }
  logger.error('unexpected error', {
    errorName: error instanceof Error ? error.name : typeof error,
    stack: error instanceof Error ? error.stack : undefined,
  });
  return new ApiError('internal_error', 'An internal error occurred.');
}
