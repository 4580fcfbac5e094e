import { useState } from 'preact/hooks';
import { api, rememberSignIn } from '../api.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { navigate } from '../router.ts';

/** One field, the console key: exchanged for a session cookie, never kept by the browser. */
export function SignInPage({ ended }: { ended: boolean }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const session = await api.signIn(key.trim());
      setKey('');
      rememberSignIn({
        name: session.name,
        merchantName: session.merchantName,
        expiresAt: session.expiresAt,
      });
      navigate('/overview');
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in" id="content">
      <h1>Abuse-decision console</h1>
      {ended ? <p class="notice">Your session ended. Sign in again.</p> : null}
      <form onSubmit={submit}>
        <label for="console-key">Console key</label>
        <input
          id="console-key"
          type="password"
          autocomplete="off"
          required
          value={key}
          onInput={(e) => setKey(e.currentTarget.value)}
        />
        <p class="hint">
          A key issued for you with <code>npm run admin -- key create --scope console</code>; it starts with
          pk_test_ or pk_live_.
        </p>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      <ErrorMessage error={error} action="Signing in" />
    </main>
  );
}
