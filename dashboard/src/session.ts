import { ConsoleApiError, rememberSignIn } from './api.ts';
import { navigate } from './router.ts';

/** A 401 from the API: the session ended (signed out elsewhere, expired, key revoked). */
function onSessionEnded(): void {
  rememberSignIn(undefined);
  navigate('/sign-in?ended=1', { replace: true });
}

/** Sends the person back to sign-in when a failed API call says the session ended. */
export function endSessionOn401(error: unknown): void {
  if (error instanceof ConsoleApiError && error.status === 401) onSessionEnded();
}
