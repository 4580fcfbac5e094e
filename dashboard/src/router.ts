import { useEffect, useState } from 'preact/hooks';

/**
 * The URL is the page's state (a person can bookmark a filtered queue or an open review): the path
 * names the page, the query its filters. Navigation uses the History API; no router library.
 */
export interface Route {
  path: string;
  query: URLSearchParams;
}

const current = (): Route => ({ path: location.pathname, query: new URLSearchParams(location.search) });
const listeners = new Set<() => void>();

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  for (const listener of listeners) listener();
}

/** The current route; re-renders on navigation and on back/forward. */
export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const update = () => setRoute(current());
    listeners.add(update);
    addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      removeEventListener('popstate', update);
    };
  }, []);
  return route;
}

/** The same path with some query parameters changed (empty values removed). */
export function withQuery(route: Route, changes: Record<string, string | undefined>): string {
  const query = new URLSearchParams(route.query);
  for (const [name, value] of Object.entries(changes)) {
    if (value) query.set(name, value);
    else query.delete(name);
  }
  const text = query.toString();
  return text ? `${route.path}?${text}` : route.path;
}
