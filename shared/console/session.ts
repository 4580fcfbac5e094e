import { clearedSessionCookie, sessionCookie } from '../auth/console-session.ts';
import type { ManagementUseCase } from '../http/management-handler.ts';
import { createConsoleSession, endConsoleSession, SESSION_TTL_MS } from '../store/console-sessions.ts';

/** POST /v1/console/session: the console key (in Authorization) for a 12-hour session cookie. */
export const signIn: ManagementUseCase<'consoleSignIn'> = async ({ caller }) => {
  const { token, session } = await createConsoleSession(caller, Date.now());
  return {
    body: {
      merchantId: caller.merchantId,
      merchantName: caller.merchantName,
      keyId: caller.keyId,
      name: caller.keyName,
      expiresAt: new Date(session.expiresAt).toISOString(),
    },
    headers: { 'Set-Cookie': sessionCookie(token, SESSION_TTL_MS / 1000) },
  };
};

/** DELETE /v1/console/session: ends the cookie's session (a key alone has none to end). */
export const signOut: ManagementUseCase<'consoleSignOut'> = async ({ caller }) => {
  if (caller.sessionToken) await endConsoleSession(caller.sessionToken);
  return { body: { signedOut: true }, headers: { 'Set-Cookie': clearedSessionCookie() } };
};
