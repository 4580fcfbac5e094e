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
 * same arguments give the same file; lines are in no particular time order (the import sorts them).
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
  const out: HistoryLine[] = [];
  for (let i = 0; i < options.shoppers; i++) {
    const shopper = newShopper(rng);
    const joined = options.start + i * 7 * MINUTE + rng.int(0, 6 * MINUTE);
    out.push({ type: 'signup', body: signupBody(rng, shopper, shopper.device, joined) });
    if (rng.chance(0.2)) {
      out.push({ type: 'login', body: loginBody(shopper, shopper.device, false, joined + MINUTE) });
    }
    out.push({ type: 'login', body: loginBody(shopper, shopper.device, true, joined + 2 * MINUTE) });
    const placed = joined + rng.int(3, 30) * MINUTE;
    const item = { sku: rng.id('sku'), price: rng.int(20, 300), quantity: 1, category: 'Apparel' };
    const order = orderBody(rng, shopper, [item], placed);
    out.push({ type: 'order', body: order });
    if (rng.chance(0.4)) {
      const returned = returnBody(rng, order, placed + rng.int(3, 20) * DAY, shopper.device);
      out.push({ type: 'return', body: returned });
      out.push({
        type: 'disposition',
        returnId: returned.providerReturnId,
        body: dispositionBody(returned, rng.pick(['NEW', 'HEAVILY_USED', 'EMPTY_BOX']), 'RESTOCK'),
      });
    }
    if (rng.chance(0.1)) {
      const filed = placed + rng.int(30, 60) * DAY;
      out.push({
        type: 'dispute',
        orderId: order.providerOrderId,
        body: disputeBody(rng, Number(order.totalPrice.amount), 'LOST', filed),
      });
    }
    if (rng.chance(0.2)) {
      const { newValue: _value, ...update } = accountBody(
        shopper,
        'ADDRESS_ADD',
        shopper.device,
        joined + DAY,
      );
      out.push({ type: 'account', body: update });
    }
  }
  return out;
}

export const toNdjson = (lines: readonly HistoryLine[]) =>
  `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;
