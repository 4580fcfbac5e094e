import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_REST_MS, pollEvery } from '../../local/poll.ts';

/** Pass starts, in fake milliseconds, of a poller whose every pass takes `passMs`. */
async function passStarts(passMs: number, options: { restPerPass?: number }, runForMs: number) {
  const starts: number[] = [];
  const poller = pollEvery(
    100,
    async () => {
      starts.push(performance.now());
      await new Promise((resolve) => setTimeout(resolve, passMs));
    },
    (error) => {
      throw error;
    },
    options,
  );
  await vi.advanceTimersByTimeAsync(runForMs);
  poller.stop();
  return starts;
}

const gaps = (starts: number[]) => starts.slice(1).map((start, i) => start - (starts[i] ?? 0));

/** Local mode's pollers (the stand-ins for Lambda event sources), timed on fake clocks. */
describe('local pollers', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }));
  afterEach(() => vi.useRealTimers());

  it('run a pass every interval after the last one ends, one at a time', async () => {
    expect(gaps(await passStarts(50, {}, 1_000))).toEqual(Array(6).fill(150));
  });

  it('rest a paced pass as many times its own length, so slow passes take a bounded share', async () => {
    // 20 ms passes stay at the interval; 2 s passes rest 8 s: a fifth of the time.
    expect(gaps(await passStarts(20, { restPerPass: 4 }, 1_000)).every((gap) => gap === 120)).toBe(true);
    expect(gaps(await passStarts(2_000, { restPerPass: 4 }, 60_000))).toEqual(Array(5).fill(10_000));
  });

  it('rest at most MAX_REST_MS after a pass, however long it took', async () => {
    const passMs = MAX_REST_MS;
    expect(gaps(await passStarts(passMs, { restPerPass: 4 }, 5 * (passMs + MAX_REST_MS)))).toEqual(
      Array(4).fill(passMs + MAX_REST_MS),
    );
  });
});
