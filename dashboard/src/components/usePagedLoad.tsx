import { useState } from 'preact/hooks';
import { api, type ConsoleClient } from '../api.ts';
import { type Loaded, useLoad } from './useLoad.ts';

/**
 * A listing read page by page: the first page loads whenever `deps` change, `loadMore` appends the
 * next one while the API gives a cursor (<LoadMore> is its button).
 */
export function usePagedLoad<T>(
  loadPage: (client: ConsoleClient, cursor?: string) => Promise<{ items: T[]; nextCursor?: string }>,
  deps: readonly unknown[],
): Loaded<{ items: T[] }> & { items: T[]; cursor: string | undefined; loadMore: () => Promise<void> } {
  const [more, setMore] = useState<{ items: T[]; cursor?: string; error?: unknown }>({ items: [] });
  const first = useLoad(async (client) => {
    const page = await loadPage(client);
    setMore({ items: [], ...(page.nextCursor ? { cursor: page.nextCursor } : {}) });
    return page;
  }, deps);
  const loadMore = async () => {
    if (!more.cursor) return;
    try {
      const page = await loadPage(api, more.cursor);
      setMore({
        items: [...more.items, ...page.items],
        ...(page.nextCursor ? { cursor: page.nextCursor } : {}),
      });
    } catch (error) {
      setMore({ ...more, error });
    }
  };
  return {
    ...first,
    error: first.error ?? more.error,
    items: [...(first.data?.items ?? []), ...more.items],
    cursor: more.cursor,
    loadMore,
  };
}

export function LoadMore({
  paged,
}: {
  paged: { cursor: string | undefined; loadMore: () => Promise<void> };
}) {
  return paged.cursor ? (
    <button type="button" class="secondary" onClick={paged.loadMore}>
      Load more
    </button>
  ) : null;
}
