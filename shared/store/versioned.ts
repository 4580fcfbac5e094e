/**
 * Optimistic concurrency for records that several requests may change (a return's status, its
 * dispositions, a dispute): each write names the version it read, and loses if another write came
 * first. The loser re-reads and decides again, so counters move exactly once per real change.
 */
export class StaleRecordError extends Error {
  constructor(what: string) {
    super(`${what} changed since it was read`);
    this.name = 'StaleRecordError';
  }
}

export const VERSION_ATTRIBUTE = 'version';

/** Condition for a Put of a record read at `expected` (undefined: it did not exist then). */
export function versionCondition(expected: number | undefined) {
  return expected === undefined
    ? { ConditionExpression: 'attribute_not_exists(PK)' }
    : {
        ConditionExpression: '#version = :expectedVersion',
        ExpressionAttributeNames: { '#version': VERSION_ATTRIBUTE },
        ExpressionAttributeValues: { ':expectedVersion': expected },
      };
}
