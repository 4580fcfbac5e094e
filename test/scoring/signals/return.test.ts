import { METRIC } from '../../../shared/identity/metrics.ts';
import { returnSignals } from '../../../shared/scoring/signals/return-signals.ts';
import type { WatchFacts } from '../../../shared/scoring/signals/watched-identity.ts';
import { EMAIL, returned } from '../scoring-inputs.ts';
import { describeSignalRows, fires, sharedRows, silent } from '../signal-rows.ts';
import { countIn } from '../snapshots.ts';

/** An e-mail with `orders` earlier orders worth 50 each and `returns` returns in the last year. */
const history = (orders: number, returns: number, returnedValue = returns * 50) => ({
  email: {
    counts: {
      [METRIC.orders]: { lifetime: orders },
      [METRIC.orderValue]: { lifetime: orders * 50 },
      [METRIC.returns]: countIn('d365', returns),
      [METRIC.returnValue]: countIn('d365', returnedValue),
    },
  },
});

const withWatch = (watch: WatchFacts) => returned({ input: { watch } });
describeSignalRows('return', returnSignals, {
  watchedIdentityNewCustomer: sharedRows.watchedIdentityNewCustomer(withWatch, 'return'),
  watchedIdentityKnownCustomer: sharedRows.watchedIdentityKnownCustomer(withWatch, 'return'),
  moreUnitsReturnedThanBought: [
    fires(
      'a second unit of a line bought once',
      returned({ item: { unitsReturnedBefore: 1 } }),
      1,
      '2 units returned of 1 bought',
    ),
    silent('exactly the units bought', returned({ item: { quantity: 2, unitsBought: 2 } })),
  ],
  abusiveReturnsOnIdentities: [
    fires(
      '1 on the order’s address',
      returned({ address: { counts: { [METRIC.abusiveReturns]: countIn('d365', 1) } } }),
      1,
      '1 abusive return on this address in 365 days',
    ),
    silent(
      'older than 365 days',
      returned({ address: { counts: { [METRIC.abusiveReturns]: { lifetime: 1 } } } }),
    ),
  ],
  lostChargebacksOnIdentities: [
    fires(
      '3 on the return device',
      returned({ device: { counts: { [METRIC.lostChargebacks]: countIn('d365', 3) } } }),
      2,
      '3 lost chargebacks on this device in 365 days',
    ),
    silent('none', returned()),
  ],
  openDisputesOnIdentities: [
    fires(
      '1 open on the e-mail',
      returned({ email: { counts: { [METRIC.openDisputes]: { lifetime: 1 } } } }),
      1,
      '1 open dispute on this e-mail',
    ),
    silent('none', returned()),
  ],
  returnsLast30Days: [
    fires(
      '1 in 30 days',
      returned({ email: { counts: { [METRIC.returns]: countIn('d30', 1) } } }),
      1,
      '1 return on this e-mail in 30 days',
    ),
    silent(
      '1 earlier in the year',
      returned({ email: { counts: { [METRIC.returns]: countIn('d365', 1) } } }),
    ),
  ],
  returnsLast365Days: [
    fires('3 in the year: log2(3 - 1)', returned(history(10, 3)), 1, '3 returns on this e-mail in 365 days'),
    silent('2 in the year are usual', returned(history(10, 2))),
  ],
  returnRateByCount: [
    fires('3 of 4 orders returned', returned(history(4, 3)), 0.75, '75% of orders returned on this e-mail'),
    silent('1 of 4 returned', returned(history(4, 1))),
    silent('a rate over fewer than 2 returns says little', returned(history(1, 1))),
  ],
  returnRateByValue: [
    fires(
      '100 of 200 returned',
      returned(history(4, 3, 100)),
      0.5,
      '50% of order value returned on this e-mail',
    ),
    silent('50 of 200 returned', returned(history(4, 3, 50))),
  ],
  lateReturn: [
    fires(
      '45 days after the order',
      returned({ input: { daysSinceOrder: 45 } }),
      0.5,
      'returned 45 days after the order',
    ),
    silent('30 days after', returned({ input: { daysSinceOrder: 30 } })),
  ],
  highValueCategory: [
    fires(
      'consumer electronics',
      returned({ item: { category: 'Consumer Electronics' } }),
      1,
      'high-value category Consumer Electronics',
    ),
    silent('apparel', returned()),
  ],
  highValueItem: [
    fires('worth 1000: capped at 2', returned({ item: { value: 1000 } }), 2, 'high-value item'),
    fires('worth 500', returned({ item: { value: 500 } }), 1, 'high-value item'),
    fires(
      'worth 375: log2(375 / 250)',
      returned({ item: { value: 375 } }),
      Math.log2(1.5),
      'high-value item',
    ),
    silent('worth 250', returned({ item: { value: 250 } })),
  ],
  refundToOriginalPayment: [
    fires(
      'to the card',
      returned({ input: { refundMode: 'ORIGINAL_PAYMENT' } }),
      1,
      'refund to the original payment',
    ),
    silent('store credit', returned()),
  ],
  refundAsExchange: [
    fires('an exchange', returned({ input: { refundMode: 'EXCHANGE' } }), 1, 'exchange'),
    silent('store credit', returned()),
  ],
  returnDeviceSharedAcrossEmails: [
    fires(
      'the return device seen with 3 other e-mails, its home unknown: one is a housemate',
      returned({ device: { links: { email: [EMAIL, 'email-2', 'email-3', 'email-4'] } } }),
      Math.log2(3),
      'return device used with 3 other e-mails',
    ),
    silent(
      'the device at the order’s address with 5 other e-mails, never used with another address: a family of six',
      returned({
        device: {
          links: {
            email: [EMAIL, 'email-2', 'email-3', 'email-4', 'email-5', 'email-6'],
            address: ['address-1'],
          },
        },
      }),
    ),
    fires(
      'the same device also used with 3 other addresses: three of the others are the household',
      returned({
        device: {
          links: {
            email: [EMAIL, 'email-2', 'email-3', 'email-4', 'email-5', 'email-6'],
            address: ['address-1', 'address-2', 'address-3', 'address-4'],
          },
        },
      }),
      Math.log2(3),
      'return device used with 5 other e-mails',
    ),
    silent(
      'the family’s tablet at the order’s address, 3 other e-mails',
      returned({
        device: { links: { email: [EMAIL, 'email-2', 'email-3', 'email-4'], address: ['address-1'] } },
      }),
    ),
    silent('only the order’s own e-mail', returned()),
  ],
});
