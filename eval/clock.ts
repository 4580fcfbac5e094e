import { DEFAULT_RETENTION_DAYS } from '../shared/retention.ts';

/**
 * The server's clock during a run: each event is delivered at its own time, as live traffic would
 * be, so what the service received "by then" is exactly the events before it (dispositions, which
 * carry no time, are dated by this clock). Only ever moves forward within a run; `undefined` gives
 * the real clock back.
 */
export interface Clock {
  set: (at: number | undefined) => void;
  /** The real time, whatever the simulated clock says. */
  real: () => number;
}

export function installSimulatedClock(): Clock {
  const realNow = Date.now.bind(Date);
  let simulatedNow: number | undefined;
  Date.now = () => simulatedNow ?? realNow();
  return {
    set: (at) => {
      simulatedNow = at;
    },
    real: realNow,
  };
}

const DAY = 86_400_000;

/**
 * DynamoDB Local removes expired items (the table's TTL) by the real clock, which the simulated one
 * does not move: a record written at a simulated time more than its retention before today expires
 * during the run while the simulated merchant still reads it (a dispute on an order of 401 days
 * ago, which to the merchant was placed last month). For a replay whose first event is at `first`,
 * every kind of record is kept that many days longer, as if written today; nothing else changes.
 */
export function keepRecordsThroughReplay(first: number, realNow: number) {
  const extra = Math.max(0, Math.ceil((realNow - first) / DAY)) + 1;
  const kept = Object.fromEntries(
    Object.entries(DEFAULT_RETENTION_DAYS).map(([kind, days]) => [kind, days + extra]),
  );
  process.env.RETENTION_DAYS = JSON.stringify(kept);
}
