import { SeededRandom } from './random.ts';
import {
  accountBody,
  dispositionBody,
  disputeBody,
  loginBody,
  newShopper,
  orderBody,
  returnBody,
  signupBody,
} from './traffic.ts';

/**
 * A merchant's history as `npm run admin -- import` reads it: one JSON line per event, every kind
 * of event, each with its own time, for the import tests and the import benchmark. Seeded, so the
 * same arguments give the same file; lines in event-time order, as the import takes them (a
 * disposition right after its return).
 */
const MINUTE = 60_000;
const DAY = 86_400_000;

export interface HistoryLine {
  type: 'order' | 'return' | 'disposition' | 'dispute' | 'signup' | 'login' | 'account';
  body: unknown;
  returnId?: string;
  orderId?: string;
}

export function historyLines(options: { shoppers: number; seed: number; start: number }): HistoryLine[] {
  const rng = new SeededRandom(options.seed);
  // Lines are written shopper by shopper, each with its time, then put in time order.
  const timed: { at: number; lines: HistoryLine[] }[] = [];
  const out = { push: (line: HistoryLine, at: number) => timed.push({ at, lines: [line] }) };
  for (let i = 0; i < options.shoppers; i++) {
    const shopper = newShopper(rng);
    const joined = options.start + i * 7 * MINUTE + rng.int(0, 6 * MINUTE);
    out.push({ type: 'signup', body: signupBody(rng, shopper, shopper.device, joined) }, joined);
    if (rng.chance(0.2)) {
      out.push(
        { type: 'login', body: loginBody(shopper, shopper.device, false, joined + MINUTE) },
        joined + MINUTE,
      );
    }
    out.push(
      { type: 'login', body: loginBody(shopper, shopper.device, true, joined + 2 * MINUTE) },
      joined + 2 * MINUTE,
    );
    const placed = joined + rng.int(3, 30) * MINUTE;
    const item = { sku: rng.id('sku'), price: rng.int(20, 300), quantity: 1, category: 'Apparel' };
    const order = orderBody(rng, shopper, [item], placed);
    out.push({ type: 'order', body: order }, placed);
    if (rng.chance(0.4)) {
      const returnedAt = placed + rng.int(3, 20) * DAY;
      const returned = returnBody(rng, order, returnedAt, shopper.device);
      // The disposition carries no time: it follows its return.
      timed.push({
        at: returnedAt,
        lines: [
          { type: 'return', body: returned },
          {
            type: 'disposition',
            returnId: returned.providerReturnId,
            body: dispositionBody(returned, rng.pick(['NEW', 'HEAVILY_USED', 'EMPTY_BOX']), 'RESTOCK'),
          },
        ],
      });
    }
    if (rng.chance(0.1)) {
      const filed = placed + rng.int(30, 60) * DAY;
      const body = disputeBody(rng, Number(order.totalPrice.amount), 'LOST', filed);
      out.push(
        { type: 'dispute', orderId: order.providerOrderId, body },
        Math.max(...body.dispute.map((d) => d.timestamp)),
      );
    }
    if (rng.chance(0.2)) {
      const { newValue: _value, ...update } = accountBody(
        shopper,
        'ADDRESS_ADD',
        shopper.device,
        joined + DAY,
      );
      out.push({ type: 'account', body: update }, joined + DAY);
    }
  }
  return timed.sort((a, b) => a.at - b.at).flatMap((group) => group.lines);
}

export const toNdjson = (lines: readonly HistoryLine[]) =>
  `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;
