import type { IdentityRef, NameIdentities } from '../../identity/identities.ts';
import { METRIC } from '../../identity/metrics.ts';
import type { IdentitySnapshot } from '../identity-snapshot.ts';

/**
 * A household shares a device: a family's tablet, a couple's laptop. The other accounts or e-mails on
 * an event's device that its household explains do not count against it. How many: at least three
 * others, a household of four (about one US household in five has four or more members, US Census
 * Bureau, America's Families and Living Arrangements), as far as the event shows it is one:
 * - its address was already used with the device (its home), fully, and for orders and returns beyond
 *   four as far as the device's history shows one home: every e-mail on it, less one for each other
 *   address it shipped to (a gift, a relative's). A family of six or an office shipping home is not
 *   a ring;
 * - or its surname was already used on the device, as far as the name is the family's and not
 *   everyone's: the device's whole names that may carry it (at least a household of four's three),
 *   times e^-(share / 5 %), the share being the name's part of the merchant's signups beyond the
 *   device's own accounts (a Smith at a US merchant, 1 %, counts 82 %; a name on a third of the
 *   signups counts nothing; a family's name on a merchant's first day is the family's alone).
 * A ring's members ship to drops the device never used, or to several, and carry names of their own.
 * A household explains other people: a signup under a whole name (first name and surname) the device
 * already holds is that person's next account, and nothing on the device explains it.
 */
const HOUSEHOLD_OTHERS = 3;
const COMMON_SURNAME_SHARE = 0.05;
/** Where the event cannot show its home: a couple, most homes holding two people or more. */
const UNKNOWN_HOME_OTHERS = 1;
/** A family's member under a name of his own: a partner, an in-law. */
const PARTNERS = 1;

/** The device was already used with the address: its home, or one of its deliveries. */
const served = (device: IdentitySnapshot, address: IdentitySnapshot) =>
  device.isLinked('address', address.ref.digest);

/** One of the event's devices was already used with one of its addresses: the event is at its home. */
const homeDevices = (addresses: readonly IdentitySnapshot[], devices: readonly IdentitySnapshot[]) =>
  devices.filter((device) => addresses.some((address) => served(device, address)));

/**
 * Others a home device's household explains: each e-mail on it but one per address it shipped to
 * beyond the home, and never fewer than a household of four's three. A device keeps its first eight
 * addresses (link-sketch.ts), so one that shipped to eight or more keeps six or seven others counted.
 */
const homeOthers = (home: readonly IdentitySnapshot[]): number =>
  Math.max(
    HOUSEHOLD_OTHERS,
    ...home.map((device) => device.linkedCount('email') - Math.max(0, device.linkedCount('address') - 1)),
  );

/** Nothing tells the event's home: no device, no address, or a device never used with one. */
const homeUnknown = (addresses: readonly IdentitySnapshot[], devices: readonly IdentitySnapshot[]) =>
  devices.length === 0 || addresses.length === 0 || devices.every((d) => d.linkedCount('address') === 0);

/**
 * Orders: the order's address is its device's home (its household's others explained), or nothing
 * tells its home and its card's or device's first other e-mail is taken for a housemate's (most homes
 * hold two people or more): never worse for a field left out.
 */
export function orderHousehold(
  places: readonly IdentitySnapshot[],
  devices: readonly IdentitySnapshot[],
): number {
  const addresses = places.filter((place) => place.ref.kind === 'address');
  const home = homeDevices(addresses, devices);
  if (home.length > 0) return homeOthers(home);
  return homeUnknown(addresses, devices) ? UNKNOWN_HOME_OTHERS : 0;
}

/**
 * Signups: what the signup's address and the names on its device show, as above; a signup that
 * names no address, or whose device never saw one, cannot show its home, and like an order's its
 * device's first other account is taken for a housemate's.
 */
export function signupHousehold(evidence: SignupNames & { addresses: readonly IdentitySnapshot[] }): number {
  const { addresses, devices, fullName } = evidence;
  if (fullName && devices.some((d) => d.isLinked('fullName', fullName.digest))) return 0;
  const family = familyOthers(evidence);
  // A signup's address is what its person types, not where goods go: at home, a household of four.
  if (homeDevices(addresses, devices).length > 0) return Math.max(HOUSEHOLD_OTHERS, family);
  return Math.max(homeUnknown(addresses, devices) ? UNKNOWN_HOME_OTHERS : 0, family);
}

interface SignupNames {
  devices: readonly IdentitySnapshot[];
  surname: IdentitySnapshot | undefined;
  fullName: IdentityRef | undefined;
  /** The merchant's signups ever (its signup counter). */
  merchantSignups: number;
}

/**
 * The others a family on the signup's devices explains. Under the signup's surname: the whole names
 * there that may carry it (at least a household of four's three), as far as the name is the
 * family's and not everyone's, and its member under a name of his own. Under another, the signup is
 * that member: the namesakes of a family the device's names show (two whole names or more under one
 * surname).
 */
function familyOthers({ devices, surname, merchantSignups }: SignupNames): number {
  const named = surname ? devices.filter((d) => d.isLinked('surname', surname.ref.digest)) : [];
  if (!surname || named.length === 0) return Math.max(0, ...devices.map(namesakes).filter((n) => n >= 2));
  // The family's own signups on the device do not make its name common: in a merchant's first hours
  // they would be most of the name's count, and of the merchant's.
  const accounts = Math.max(...named.map((d) => d.linkedCount('customer')));
  const others = Math.max(0, surname.count(METRIC.signups).lifetime - accounts);
  const share = merchantSignups > 0 ? others / merchantSignups : 0;
  const family =
    Math.max(HOUSEHOLD_OTHERS, ...named.map(namesakes)) * Math.exp(-share / COMMON_SURNAME_SHARE);
  return family + Math.min(PARTNERS, family);
}

/**
 * The whole names on a device that may share one surname: every whole name on it but one per other
 * surname. A family of six on its shared phone is five others under its name; a device behind names
 * of their own has one per name.
 */
const namesakes = (device: IdentitySnapshot) =>
  device.linkedCount('fullName') - Math.max(0, device.linkedCount('surname') - 1);

/**
 * Orders: the household the order's customer is named a member of: its devices that hold the
 * customer's surname under another whole name (a housemate's order or signup put it there), and the
 * order's addresses those devices served before (their home). Once its e-mail was named a member
 * (`vouched`), the customer's own whole name on the device is its own earlier order's. A stranger
 * who came first under a made-up name is not vouched by the name his own order left on the device.
 */
export function namedHousehold(
  name: NameIdentities,
  devices: readonly IdentitySnapshot[],
  addresses: readonly IdentitySnapshot[],
  vouched: boolean,
): IdentitySnapshot[] {
  const { surname, fullName } = name;
  if (!surname) return [];
  const named = devices.filter(
    (device) =>
      device.isLinked('surname', surname.digest) &&
      (vouched || (fullName !== undefined && !device.isLinked('fullName', fullName.digest))),
  );
  return named.length === 0 ? [] : [...named, ...homeOf(addresses, named)];
}

const homeOf = (addresses: readonly IdentitySnapshot[], devices: readonly IdentitySnapshot[]) =>
  addresses.filter((address) => devices.some((device) => served(device, address)));
