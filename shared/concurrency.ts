/**
 * Runs `work` on every value, at most `limit` at once, in order of the values; rejects with the
 * first failure (work already started still finishes).
 */
export async function forEachConcurrently<T>(
  values: readonly T[],
  limit: number,
  work: (value: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < values.length) await work(values[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, values.length) }, lane));
}
