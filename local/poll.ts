/** The longest pause a paced poller takes (`restPerPass`): its feed is never more than this behind. */
export const MAX_REST_MS = 60_000;

/**
 * Local mode's stand-in for a Lambda event source: runs `pass` every `intervalMs`, one pass at a
 * time (the next is scheduled when the last ends); a pass that throws is reported and the polling
 * goes on. With `restPerPass`, the pause after a pass is also at least that many times the pass's
 * own length (at most MAX_REST_MS), so the poller takes at most 1 / (1 + restPerPass) of the time
 * of what it polls, however slow its passes grow.
 */
export function pollEvery(
  intervalMs: number,
  pass: () => Promise<void>,
  onError: (error: Error) => void,
  { restPerPass = 0 }: { restPerPass?: number } = {},
): { stop: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const run = async () => {
    const started = performance.now();
    try {
      await pass();
    } catch (error) {
      onError(error as Error);
    }
    const paced = Math.min(MAX_REST_MS, restPerPass * (performance.now() - started));
    if (!stopped) timer = setTimeout(run, Math.max(intervalMs, paced));
  };
  timer = setTimeout(run, intervalMs);
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
