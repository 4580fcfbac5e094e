import { type ConsoleClient, createConsoleClient } from '../../client/src/console.ts';

export * from '../../client/src/console.ts';

/** The dashboard's client: same origin, the session cookie, the CSRF header on every call. */
export const api: ConsoleClient = createConsoleClient({ baseUrl: '' });

/**
 * The same client, also noting the request id of every answer it receives into `noted`: a page that
 * cannot render an answer names it (PageBoundary).
 */
export function clientNotingRequestIds(noted: string[]): ConsoleClient {
  return createConsoleClient({
    baseUrl: '',
    fetch: async (request) => {
      const response = await fetch(request);
      const requestId = response.headers.get('x-request-id');
      if (requestId) noted.push(requestId);
      return response;
    },
  });
}

/** Who is signed in, for the header only; the credential itself is the HttpOnly cookie. */
export interface SignedIn {
  name: string;
  merchantName: string;
  expiresAt: string;
}

const STORAGE_KEY = 'console.signedIn';

export function signedIn(): SignedIn | undefined {
  const stored = sessionStorage.getItem(STORAGE_KEY);
  if (!stored) return undefined;
  const value = JSON.parse(stored) as SignedIn;
  return Date.parse(value.expiresAt) > Date.now() ? value : undefined;
}

export function rememberSignIn(value: SignedIn | undefined): void {
  if (value) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(value));
  else sessionStorage.removeItem(STORAGE_KEY);
}

export const EVENT_TYPES = ['order', 'return', 'signup', 'login', 'account'] as const;
