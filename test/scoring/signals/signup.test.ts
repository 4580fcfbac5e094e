import { METRIC } from '../../../shared/identity/metrics.ts';
import { signupSignals } from '../../../shared/scoring/signals/signup-signals.ts';
import type { WatchFacts } from '../../../shared/scoring/signals/watched-identity.ts';
import { ACCOUNT, AT, DAY, EMAIL, signup } from '../scoring-inputs.ts';
import { describeSignalRows, fires, sharedRows, silent } from '../signal-rows.ts';
import { countIn } from '../snapshots.ts';

const HOUR = 3_600_000;
const withTime = (time: ReturnType<typeof signup>['time']) => signup({ input: { time } });
const otherAccounts = { links: { customer: [ACCOUNT, 'a1'] } };
/** Signups on the e-mail's domain (or the merchant's): `h1` in the last hour, `month` in the 30 days. */
const domainSignups = (h1: number, month: number) => ({
  counts: { [METRIC.signups]: { m15: 0, h1, h24: h1, d30: month, d365: month, lifetime: month } },
});

/**
 * A third account on a device that already saw its surname (a family's tablet, `hours` old), under
 * the whole name `fullName` (the tablet holds `name-1`, its earlier holder's).
 */
const familyTablet = (nameSignups: number, merchantSignups: number, hours: number, fullName = 'name-2') =>
  signup({
    device: {
      links: { customer: ['a1', 'a2'], surname: ['surname-1'], fullName: ['name-1'] },
      firstSeenAt: AT - hours * HOUR,
    },
    surname: { counts: { [METRIC.signups]: { lifetime: nameSignups } } },
    traffic: { counts: { [METRIC.signups]: { lifetime: merchantSignups } } },
    fullName,
  });
const withWatch = (watch: WatchFacts) => signup({ input: { watch } });
/** A device whose accounts sent orders seconds after signing up: `weight` of them, the latest `since` s ago. */
const scriptedDevice = (weight: number, since: number) =>
  signup({
    device: {
      counts: { [METRIC.scriptedOrders]: { d365: weight, lifetime: weight } },
      latest: { [METRIC.scriptedOrders]: since },
    },
  });
/** The same signup naming no address. */
const withoutAddress = (input: ReturnType<typeof signup>) => ({
  ...input,
  history: { ...input.history, addresses: [] },
});
const signupWithoutAddress = (spec: Parameters<typeof signup>[0]) => withoutAddress(signup(spec));
describeSignalRows('signup', signupSignals, {
  watchedIdentityNewCustomer: sharedRows.watchedIdentityNewCustomer(withWatch, 'signup'),
  watchedIdentityKnownCustomer: sharedRows.watchedIdentityKnownCustomer(withWatch, 'signup'),
  scriptSpeedAfterPreviousEvent: sharedRows.scriptSpeedAfterPreviousEvent(withTime, 'signup'),
  newIdentitiesAroundLastHour: sharedRows.newIdentitiesAroundLastHour(
    withTime,
    { pair: 'customersPerAddress', holder: 'address', others: 'accounts' },
    'cardsPerDevice',
  ),
  freshAccountsOnYoungIdentity: [
    fires(
      "a farm's second account on a device first seen 30 hours ago",
      signup({ device: { links: { customer: ['a1'] }, firstSeenAt: AT - 30 * HOUR } }),
      1 / (1 + (30 / 48) ** 4),
      'device first seen 30 hours ago, already used with 1 other account',
    ),
    silent(
      "a couple: the second account on a new device already seen with the signup's address",
      signup({
        device: { links: { customer: ['a1'], address: ['address-1'] }, firstSeenAt: AT - 14 * HOUR },
        address: { firstSeenAt: AT - 14 * HOUR },
      }),
    ),
    silent(
      "a family's third account on its new tablet: the device already saw the family's surname",
      familyTablet(2, 1_000, 14),
    ),
    silent(
      "a family's sixth account on its phone first seen 5 hours ago: five whole names under its surname",
      signup({
        device: {
          links: {
            customer: ['a1', 'a2', 'a3', 'a4', 'a5'],
            surname: ['surname-1'],
            fullName: ['name-1', 'name-2', 'name-3', 'name-4', 'name-5'],
          },
          firstSeenAt: AT - 5 * HOUR,
        },
        surname: { counts: { [METRIC.signups]: { lifetime: 5 } } },
        traffic: { counts: { [METRIC.signups]: { lifetime: 1_000 } } },
        fullName: 'name-6',
      }),
    ),
    silent(
      "a partner's signup on a family's phone: four whole names under one surname, his another",
      signup({
        device: {
          links: {
            customer: ['a1', 'a2', 'a3', 'a4'],
            surname: ['surname-1'],
            fullName: ['name-1', 'name-2', 'name-3', 'name-4'],
          },
          firstSeenAt: AT - 5 * HOUR,
        },
        fullName: 'name-5',
      }),
    ),
    fires(
      'the same phone behind four names of their own, the signup naming no address: a couple explained, no family',
      signupWithoutAddress({
        device: {
          links: {
            customer: ['a1', 'a2', 'a3', 'a4'],
            surname: ['s1', 's2', 's3', 's4'],
            fullName: ['name-1', 'name-2', 'name-3', 'name-4'],
          },
          firstSeenAt: AT - 5 * HOUR,
        },
        fullName: 'name-5',
      }),
      Math.log2(1 + 3) * (1 / (1 + (5 / 192) ** 4)),
      'device first seen 5 hours ago, already used with 4 other accounts',
    ),
    fires(
      'five accounts under names of their own, one of them the surname’s: a household of four and a partner explained',
      signup({
        device: {
          links: {
            customer: ['a1', 'a2', 'a3', 'a4', 'a5'],
            surname: ['surname-1', 's2', 's3', 's4', 's5'],
            fullName: ['name-1', 'name-2', 'name-3', 'name-4', 'name-5'],
          },
          firstSeenAt: AT - 5 * HOUR,
        },
        surname: { counts: { [METRIC.signups]: { lifetime: 1 } } },
        traffic: { counts: { [METRIC.signups]: { lifetime: 1_000 } } },
        fullName: 'name-6',
      }),
      Math.log2(1 + (5 - 4)) * (1 / (1 + (5 / 240) ** 4)),
      'device first seen 5 hours ago, already used with 5 other accounts',
    ),
    silent(
      "the same on a merchant's first hours (20 signups): the name's 2 signups are the family's own",
      familyTablet(2, 20, 5),
    ),
    fires(
      "the same device's earlier holder opening a third account under his own whole name: no housemate",
      familyTablet(2, 1_000, 14, 'name-1'),
      Math.log2(3) * (1 / (1 + (50_400 / 345_600) ** 4)),
      'device first seen 14 hours ago, already used with 2 other accounts',
    ),
    fires(
      'the same person at his home (the address already used with the device)',
      signup({
        device: {
          links: { customer: ['a1'], address: ['address-1'], fullName: ['name-1'] },
          firstSeenAt: AT - 14 * HOUR,
        },
        address: { firstSeenAt: AT - 14 * HOUR },
        fullName: 'name-1',
      }),
      1 / (1 + (50_400 / 172_800) ** 4),
      'device first seen 14 hours ago, already used with 1 other account',
    ),
    fires(
      'the same with a surname on half of the merchant’s signups: no household evidence',
      familyTablet(500, 1_000, 14),
      // The device's own two accounts are the family's, not the name's commonness: 498 of 1,000.
      Math.log2(1 + (2 - 2 * 3 * Math.exp(-0.498 / 0.05))) * (1 / (1 + (50_400 / 345_600) ** 4)),
      'device first seen 14 hours ago, already used with 2 other accounts',
    ),
    silent(
      'a second account on a young device, the signup naming no address: taken for a couple',
      withoutAddress(signup({ device: { links: { customer: ['a1'] }, firstSeenAt: AT - 14 * HOUR } })),
    ),
    fires(
      'a third account there: one beyond a couple',
      withoutAddress(signup({ device: { links: { customer: ['a1', 'a2'] }, firstSeenAt: AT - 14 * HOUR } })),
      1 / (1 + (50_400 / 345_600) ** 4),
      'device first seen 14 hours ago, already used with 2 other accounts',
    ),
    fires(
      'a fifth account at the home: one beyond a household of four',
      signup({
        device: {
          links: { customer: ['a1', 'a2', 'a3', 'a4'], address: ['address-1'] },
          firstSeenAt: AT - 14 * HOUR,
        },
        address: { firstSeenAt: AT - 14 * HOUR },
      }),
      1 / (1 + (14 / 192) ** 4),
      'device first seen 14 hours ago, already used with 4 other accounts',
    ),
    silent(
      'a household device gathering 4 members over 90 days',
      signup({ device: { links: { customer: ['a1', 'a2', 'a3', 'a4'] }, firstSeenAt: AT - 90 * DAY } }),
    ),
  ],
  deviceSharedWithOtherAccounts: [
    fires(
      'the device behind 2 other accounts',
      signup({ device: { links: { customer: [ACCOUNT, 'a1', 'a2'] } } }),
      Math.log2(3),
      'device already behind 2 other accounts',
    ),
    silent('only the signup’s own account', signup({ device: { links: { customer: [ACCOUNT] } } })),
  ],
  scriptedOrdersFromDevice: [
    fires(
      'the device sent an order 2 s after its account signed up, 3 minutes ago',
      scriptedDevice(0.998, 180),
      Math.log2(1.998) / (1 + (180 / (30 * 86_400)) ** 4),
      'this device sent 1 order seconds after its account signed up, the latest 3 minutes ago',
    ),
    fires(
      'three such orders, the latest 30 days ago: half',
      scriptedDevice(3, 30 * 86_400),
      1,
      'this device sent 3 orders seconds after its account signed up, the latest 30 days ago',
    ),
    silent('a device whose accounts ordered minutes after signing up', signup()),
  ],
  phoneSharedWithOtherAccounts: [
    fires('1 other account', signup({ phone: otherAccounts }), 1, 'phone already behind 1 other account'),
    silent('a new phone', signup()),
  ],
  addressSharedWithOtherAccounts: [
    fires('1 other account', signup({ address: otherAccounts }), 1, 'address already behind 1 other account'),
    silent('a new address', signup()),
  ],
  emailSharedWithOtherAccounts: [
    fires('1 other account', signup({ email: otherAccounts }), 1, 'e-mail already behind 1 other account'),
    silent('a new e-mail', signup()),
  ],
  signupsFromDeviceLastHour: [
    fires(
      '3 earlier in the hour',
      signup({ device: { counts: { [METRIC.signups]: countIn('h1', 3) } } }),
      2,
      '3 earlier signups from this device in the last hour',
    ),
    silent('none', signup()),
  ],
  signupsFromDeviceEarlierToday: [
    fires(
      '4 in the day, 1 of them in the hour',
      signup({ device: { counts: { [METRIC.signups]: { h1: 1, h24: 4, d30: 4, d365: 4, lifetime: 4 } } } }),
      2,
      '3 earlier signups from this device in the last 24 hours',
    ),
    silent(
      'all of the day’s in the last hour',
      signup({ device: { counts: { [METRIC.signups]: countIn('h1', 3) } } }),
    ),
  ],
  signupsOnEmailDomainLastHour: [
    fires(
      '20 in the hour on a domain never seen, at a merchant of 1,000 signups a month: 17 past the bound, weighed 1,000 / 1,100',
      signup({ domain: domainSignups(20, 20), traffic: domainSignups(40, 1_040) }),
      (1_000 / 1_100) * Math.log2(1 + 20 - (40 / 1_001 + 3 * Math.sqrt(40 / 1_001 + 1))),
      '20 signups on this e-mail domain in the last hour, 0 expected from its usual share of signups',
    ),
    silent(
      "a merchant's first hour: 85 of its 600 signups on one domain, no month behind them",
      signup({ domain: domainSignups(85, 85), traffic: domainSignups(600, 600) }),
    ),
    silent(
      'a sale hour at ten times the traffic: the domain keeps its usual 5 % share',
      signup({ domain: domainSignups(60, 60 + 3_600), traffic: domainSignups(1_200, 1_200 + 72_000) }),
    ),
    silent(
      'three colleagues in the hour on their company domain',
      signup({ domain: domainSignups(3, 3), traffic: domainSignups(40, 1_040) }),
    ),
  ],
  selfReferral: [
    fires(
      'names itself as referrer',
      signup({ input: { referrerIsSelf: true } }),
      2,
      'referee shares its own account id with the referrer',
    ),
    fires(
      'the referrer signed up on the same device and phone',
      signup({ referrer: { links: { device: ['device-1'], phone: ['phone-1'] } } }),
      2,
      'referee shares a device, a phone with the referrer',
    ),
    fires(
      'the same device',
      signup({ referrer: { links: { device: ['device-1'] } } }),
      1,
      'referee shares a device with the referrer',
    ),
    silent('a referrer sharing nothing', signup({ referrer: { links: { device: ['device-9'] } } })),
  ],
  referrerReferralBurst: [
    fires(
      'the referrer brought 3 others today',
      signup({ referrer: { counts: { [METRIC.referrals]: countIn('h24', 3) } } }),
      Math.log2(3),
      'referrer brought 3 other signups in the last 24 hours',
    ),
    silent('1 other', signup({ referrer: { counts: { [METRIC.referrals]: countIn('h24', 1) } } })),
  ],
  emailVariantOnDevice: [
    fires(
      'the device holds the e-mail’s stem and none of its addresses: another of an earlier holder’s',
      signup({
        emailStems: ['jsmith'],
        device: { links: { emailStem: ['jsmith'], email: ['other-email'] } },
      }),
      1,
      'e-mail a variation of an address another account used on this device',
    ),
    silent(
      'the same address again: its own stem',
      signup({ emailStems: ['jsmith'], device: { links: { emailStem: ['jsmith'], email: [EMAIL] } } }),
    ),
    silent(
      'another stem on the device (a housemate’s own name)',
      signup({ emailStems: ['jsmith'], device: { links: { emailStem: ['ajones'] } } }),
    ),
    silent('no stem (too short to name anyone)', signup({ device: { links: { emailStem: ['jsmith'] } } })),
  ],
  holderNameOnDevice: [
    fires(
      'the device holds the whole name and none of its addresses: its earlier holder’s next account',
      signup({ fullName: 'name-1', device: { links: { fullName: ['name-1'], email: ['other-email'] } } }),
      1,
      'name already on this device under another e-mail',
    ),
    silent(
      'the same address again: its own account',
      signup({ fullName: 'name-1', device: { links: { fullName: ['name-1'], email: [EMAIL] } } }),
    ),
    silent('a housemate: the family’s surname under another first name', familyTablet(2, 1_000, 14)),
    silent('no whole name given', signup({ device: { links: { fullName: ['name-1'] } } })),
  ],
  disposableEmail: [
    fires('a disposable domain', signup({ input: { disposableEmail: true } }), 1, 'disposable e-mail domain'),
    silent('a common provider', signup()),
  ],
  machineGeneratedEmail: [
    fires(
      'a long digit run',
      signup({ input: { machineGeneratedEmail: 0.5 } }),
      0.5,
      'e-mail looks machine-generated',
    ),
    silent('a name a person picked', signup()),
  ],
});
