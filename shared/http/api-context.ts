import type { Context } from 'aws-lambda';
import type { Principal } from '../auth/authenticate.ts';

/** Per-request state the middleware stack fills in, carried on the Lambda context. */
export interface ApiContext extends Context {
  requestId: string;
  principal?: Principal;
  /** The console session's token, when the caller authenticated with the session cookie. */
  sessionToken?: string;
  /**
   * Headers every response of this request carries, success or error (rate-limit state,
   * deprecation notices); shared/http/middleware/error-envelope.ts adds them to the response.
   */
  responseHeaders: Record<string, string>;
}
