/**
 * Local mode's stand-in for a Lambda event source: runs `pass` every `intervalMs`, one pass at a
 * time (the next is scheduled when the last ends); a pass that throws is reported and the polling
 * goes on.
 */
export function pollEvery(
  intervalMs: number,
  pass: () => Promise<void>,
  onError: (error: Error) => void,
): { stop: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const run = async () => {
    try {
      await pass();
    } catch (error) {
      onError(error as Error);
    }
    if (!stopped) timer = setTimeout(run, intervalMs);
  };
  timer = setTimeout(run, intervalMs);
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
