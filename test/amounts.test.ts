import { describe, expect, it } from 'vitest';
import { expectError, newMerchant, withTestApi } from './support/api.ts';
import { disputeEntry, returnBody } from './support/commerce.ts';
import { orderBody } from './support/fixtures.ts';

/**
 * Every amount the schema accepts (a decimal string of up to 18 integer digits and 8 decimals, see
 * docs/decisions.md, Validation) is answered, never with a 5xx: past 2^53 an amount is no longer an exact JS
 * number, and neither are the counters that sum amounts or the values of returned units.
 */
const suite = withTestApi();

const HUGE = ['9007199254740993', '9007199254740992', '99999999999999999.99', '999999999999999999.99999999'];
const money = (amount: string) => ({ currencyCode: '840', amount });

// biome-ignore lint/suspicious/noExplicitAny: the cases reshape an order body
type Body = any;
const MONEY_FIELDS: [string, (body: Body, amount: string) => void][] = [
  ['totalPrice.amount', (b, a) => (b.totalPrice = money(a))],
  ['totalTaxes.amount', (b, a) => (b.totalTaxes = money(a))],
  ['totalShippingPrice.amount', (b, a) => (b.totalShippingPrice = money(a))],
  ['totalDiscounts[0].amount', (b, a) => (b.totalDiscounts = [{ amount: a }])],
  ['lineItems[0].unitPrice.amount', (b, a) => (b.lineItems[0].unitPrice = money(a))],
  ['paymentInfo[0].amount.amount', (b, a) => (b.paymentInfo[0].amount = money(a))],
];

describe('large amounts (issue 17.1)', () => {
  it.each(MONEY_FIELDS.flatMap(([field, set]) => HUGE.map((amount) => [field, amount, set] as const)))(
    'order %s = %s is decided as the same order at its usual amount',
    async (_field, amount, set) => {
      // Each on a merchant of its own: no history, so an amount cannot move the score of a first order.
      const usual = orderBody();
      const huge = structuredClone(usual);
      set(huge, amount);
      const decisionFor = async (body: Body) => {
        const { apiKey } = await newMerchant();
        const response = await suite.api.post('/v1/order', body, { apiKey });
        expect(response.status, response.text).toBe(200);
        return response.body.cartLevelDecisions[0].decisions[0];
      };
      expect(await decisionFor(huge)).toEqual(await decisionFor(usual));
    },
  );

  it('amounts past the bound (19 integer digits, 9 decimals) are 422 naming the field', async () => {
    for (const amount of ['1000000000000000000', '1.123456789']) {
      const body = orderBody({ amount });
      expectError(
        await suite.api.post('/v1/order', body, { apiKey: suite.apiKey }),
        422,
        'unprocessable_entity',
        'totalPrice.amount',
      );
    }
  });

  it('history past 2^53 is read back: later orders, returns of huge values and disputes still decide', async () => {
    const email = `huge-${Date.now()}@example.com`;
    const first = orderBody({
      email,
      amount: '999999999999999999.99',
      items: [{ sku: 'h1', price: '9007199254740993' }],
    });
    expect((await suite.api.post('/v1/order', first, { apiKey: suite.apiKey })).status).toBe(200);
    const second = orderBody({ email, amount: '999999999999999999.99' });
    const again = await suite.api.post('/v1/order', second, { apiKey: suite.apiKey });
    expect(again.status, again.text).toBe(200);
    // 999,999 units of a 9e15 item: a returned value of about 9e21.
    const ret = returnBody(first, { lines: [{ line: 0, quantity: 999_999 }] });
    const returned = await suite.api.post('/v1/return', ret, { apiKey: suite.apiKey });
    expect(returned.status, returned.text).toBe(200);
    const laterReturn = await suite.api.post('/v1/return', returnBody(first), { apiKey: suite.apiKey });
    expect(laterReturn.status, laterReturn.text).toBe(200);
    const disputed = await suite.api.post(
      `/v1/order/dispute/${encodeURIComponent(first.providerOrderId)}`,
      { dispute: [disputeEntry({ disputeStatus: 'LOST', disputeAmount: 1e12 })] },
      { apiKey: suite.apiKey },
    );
    expect(disputed.status, disputed.text).toBe(200);
    const third = await suite.api.post('/v1/order', orderBody({ email }), { apiKey: suite.apiKey });
    expect(third.status, third.text).toBe(200);
  });
});
