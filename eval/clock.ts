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
