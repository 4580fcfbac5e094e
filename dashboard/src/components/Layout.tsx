import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, rememberSignIn, type SignedIn } from '../api.ts';
import { navigate } from '../router.ts';
import { ErrorMessage } from './ErrorMessage.tsx';
import { Link } from './Link.tsx';

export function Layout(props: {
  user: SignedIn;
  pages: readonly { path: string; title: string }[];
  current: string;
  title: string;
  children: ComponentChildren;
}) {
  const [error, setError] = useState<unknown>();
  const signOut = async () => {
    try {
      await api.signOut();
      rememberSignIn(undefined);
      navigate('/sign-in');
    } catch (e) {
      setError(e);
    }
  };
  return (
    <div class="shell">
      <a class="skip" href="#content">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Abuse-decision console</span>
        <nav aria-label="Pages">
          {props.pages.map((p) => (
            <Link key={p.path} href={p.path} current={p.path === props.current}>
              {p.title}
            </Link>
          ))}
        </nav>
        <span class="who" title={`${props.user.merchantName} · ${props.user.name}`}>
          {props.user.merchantName} · {props.user.name}
        </span>
        <button type="button" class="secondary" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="content" tabIndex={-1}>
        <h1>{props.title}</h1>
        <ErrorMessage error={error} action="Signing out" />
        {props.children}
      </main>
    </div>
  );
}
