/**
 * Runs `work` on every value, at most `limit` at once, in order of the values. After a failure no
 * new value is started, and it rejects with the first failure only once the work already started
 * has settled: a caller that answers the failure never has writes of its own still in flight.
 */
export async function forEachConcurrently<T>(
  values: readonly T[],
  limit: number,
  work: (value: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (!failure && next < values.length) {
      try {
        await work(values[next++]!);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, values.length) }, lane));
  if (failure) throw failure.error;
}
