import { CONSOLE_REQUEST_HEADER, SESSION_COOKIE } from '../contract/console-credentials.ts';
import { ApiError } from '../errors.ts';
import { findConsoleSession } from '../store/console-sessions.ts';
import { admitKey, type CalledEndpoint, type Principal } from './authenticate.ts';
import { SESSION_TOKEN_PATTERN } from './credential-format.ts';

/**
 * The dashboard's credential: the session cookie made by POST /v1/console/session. Only management
 * endpoints accept it. A call that changes something must also carry CONSOLE_REQUEST_HEADER: a page
 * of another site can make the browser send the cookie (SameSite=Strict already stops most), but it
 * cannot add a custom header without a CORS preflight this API never grants.
 */

const READ_ONLY_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The session token in a Cookie header, if any. */
export function sessionTokenOf(cookieHeader: string | undefined): string | undefined {
  for (const part of cookieHeader?.split(';') ?? []) {
    const [name, ...value] = part.trim().split('=');
    if (name === SESSION_COOKIE && value.length > 0) return value.join('=') || undefined;
  }
  return undefined;
}

export async function authenticateSession(
  token: string,
  request: CalledEndpoint & { method: string; consoleRequestHeader: string | undefined },
  now = Date.now(),
): Promise<Principal> {
  const session = SESSION_TOKEN_PATTERN.test(token) ? await findConsoleSession(token, now) : undefined;
  if (!session) throw new ApiError('unauthenticated', 'The console session has ended; sign in again.');
  if (!READ_ONLY_METHODS.has(request.method) && !request.consoleRequestHeader) {
    throw new ApiError(
      'forbidden',
      `A change made with the session cookie needs the ${CONSOLE_REQUEST_HEADER} header (CSRF protection).`,
    );
  }
  // The key is checked on every request, so revoking it ends its sessions (within the key cache bound).
  return admitKey(session.keyHash, request, now);
}

/** The Set-Cookie value of a new session, and the one that clears it. */
export const sessionCookie = (token: string, maxAgeSeconds: number) =>
  `${SESSION_COOKIE}=${token}; Path=/v1; Max-Age=${maxAgeSeconds}; HttpOnly; Secure; SameSite=Strict`;
export const clearedSessionCookie = () =>
  `${SESSION_COOKIE}=; Path=/v1; Max-Age=0; HttpOnly; Secure; SameSite=Strict`;
