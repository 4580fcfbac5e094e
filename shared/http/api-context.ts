import type { Context } from 'aws-lambda';
import type { Principal } from '../auth/authenticate.ts';

/** Per-request state the middleware stack fills in, carried on the Lambda context. */
export interface ApiContext extends Context {
  requestId: string;
  principal?: Principal;
  /** The parsed JSON body, before validation. */
  parsedBody?: unknown;
}
