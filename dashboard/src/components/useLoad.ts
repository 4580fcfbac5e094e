import { useCallback, useContext, useEffect, useRef, useState } from 'preact/hooks';
import { type ConsoleClient, clientNotingRequestIds } from '../api.ts';
import { endSessionOn401 } from '../session.ts';
import { ShownAnswersContext } from './PageBoundary.tsx';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/**
 * Loads `load(api)` whenever `deps` change; an ended session sends the person back to sign-in. The
 * request ids of the answers are handed to the page's boundary before they are rendered, so a page
 * that cannot render them names them.
 */
export function useLoad<T>(load: (api: ConsoleClient) => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [generation, setGeneration] = useState(0);
  const answers = useContext(ShownAnswersContext);
  const loader = useRef({}).current;
  useEffect(() => () => answers?.forget(loader), [answers, loader]);
  useEffect(() => {
    let live = true;
    const requestIds: string[] = [];
    setState((s) => ({ ...s, loading: true, error: undefined }));
    load(clientNotingRequestIds(requestIds)).then(
      (data) => {
        if (!live) return;
        answers?.show(loader, requestIds);
        setState({ data, loading: false });
      },
      (error: unknown) => {
        if (!live) return;
        endSessionOn401(error);
        setState({ error, loading: false });
      },
    );
    return () => {
      live = false;
    };
  }, [...deps, generation]);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}
