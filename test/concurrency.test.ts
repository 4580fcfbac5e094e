import { describe, expect, it } from 'vitest';
import { forEachConcurrently } from '../shared/concurrency.ts';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('forEachConcurrently', () => {
  it('runs every value, never more than the limit at once', async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    await forEachConcurrently([1, 2, 3, 4, 5, 6, 7], 3, async (value) => {
      running++;
      most = Math.max(most, running);
      await tick();
      done.push(value);
      running--;
    });
    expect(done.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(3);
  });

  it('after a failure starts nothing new, and rejects only once the work in flight has settled', async () => {
    const started: number[] = [];
    const finished: number[] = [];
    const run = forEachConcurrently([1, 2, 3, 4, 5, 6], 2, async (value) => {
      started.push(value);
      if (value === 1) throw new Error('step 1 failed');
      await tick();
      finished.push(value);
    });
    await expect(run).rejects.toThrow('step 1 failed');
    // Value 2 was in flight when 1 failed: it finished before the rejection; nothing after it began.
    expect(finished).toEqual([2]);
    expect(started).toEqual([1, 2]);
  });
});
