import { useEffect, useState } from 'preact/hooks';
import { endSessionOn401 } from '../session.ts';

/**
 * A job's status (an upload, a backtest), read at once and again every `intervalMs` while `running`
 * says it runs; a new id starts over. An ended session sends the person back to sign-in.
 */
export function usePolledJob<T>(
  id: string | undefined,
  read: (id: string) => Promise<T>,
  running: (job: T) => boolean,
  intervalMs: number,
) {
  const [job, setJob] = useState<{ status?: T; error?: unknown }>({});
  useEffect(() => {
    setJob({});
    if (!id) return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const status = await read(id);
        if (!live) return;
        setJob({ status });
        if (running(status)) timer = setTimeout(poll, intervalMs);
      } catch (error) {
        if (!live) return;
        endSessionOn401(error);
        setJob({ error });
      }
    };
    void poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [id]);
  return job;
}
