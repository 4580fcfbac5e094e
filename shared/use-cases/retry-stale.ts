import { pauseBeforeRetry } from '../store/store-failures.ts';
import { StaleRecordError } from '../store/versioned.ts';

/** Enough for ten identical requests racing: each retry sees the winner's write and has less to do. */
const MAX_ATTEMPTS = 10;

/**
 * Runs read -> decide -> conditional write again whenever the write lost to a concurrent one.
 * Each attempt re-reads, so a retried identical request finds its change already made. Retries stop
 * at the request's time budget as well as at MAX_ATTEMPTS (then 503 with Retry-After).
 */
export async function retryOnStaleRecord<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof StaleRecordError)) throw error;
      await pauseBeforeRetry(n, error, 'A record kept changing under concurrent writes', MAX_ATTEMPTS);
    }
  }
}
