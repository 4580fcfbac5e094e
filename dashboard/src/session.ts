import { rememberSignIn } from './api.ts';
import { navigate } from './router.ts';

/** A 401 from the API: the session ended (signed out elsewhere, expired, key revoked). */
export function onSessionEnded(): void {
  rememberSignIn(undefined);
  navigate('/sign-in?ended=1', { replace: true });
}
