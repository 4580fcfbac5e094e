import { smallDomains } from './email-mix.ts';
import { nicknamesOf, type PersonName } from './names.ts';
import { stableChance, weighted } from './stable.ts';

/**
 * E-mail addresses for the synthetic traffic, as real inboxes look: mostly made of the person's name
 * (the name the account finally carries, eval/names.ts), some hobby handles, a few odd strings.
 * Every choice is fixed by the account's drawn handle (`rng.id('user')`) through a stable hash: no
 * draw from the traffic's random stream. Who makes which address is the patterns' decision
 * (eval/README.md, "E-mails"); the shares they use are here, with their reasons. The shares are
 * estimates: no provider publishes how its users build their addresses.
 */

/** The large providers a shopper's address is at (the draw `newShopper` has always made). */
export const LARGE_PROVIDERS = ['gmail.com', 'outlook.com', 'yahoo.com', 'icloud.com', 'proton.me'] as const;

/** The account's mailbox as drawn: its handle (the key of every choice) and its provider. */
export interface Mailbox {
  handle: string;
  provider: string;
}

/**
 * How a local part is built (examples for Jennifer Smith, born 1984):
 * - `first.last` jennifer.smith, `firstlast` jennifersmith, `flast` jsmith, `first_last`
 *   jennifer_smith, `firstl` jennifers, `first.m.last` jennifer.a.smith (a middle initial);
 * - `name+yy` jennifer.smith84 / jennifersmith84 / jsmith84 (two digits of a birth year 1970-2005),
 *   `name+yyyy` jennifersmith1984 (a birth year 1955-2005), `name+number` jennifer.smith7 /
 *   jsmith312 (a small number: 1-69 or 100-999, never year-shaped);
 * - `nickname` jen.smith, jensmith88 (a nickname where the first name has a usual one, else the
 *   first name), `lastfirst` smithjennifer / smith.jennifer, `first+digits` jennifer84 /
 *   jennifer1984 / jennifer27;
 * - `handle` sunnyhiker82, soccermom07 (words, mostly with digits: no name);
 * - `odd` xk7rq2m9ta (random-looking), 4157730921 (a long digit run), js448213 (initials and digits).
 */
export type Form =
  | 'first.last'
  | 'firstlast'
  | 'flast'
  | 'first_last'
  | 'firstl'
  | 'first.m.last'
  | 'name+yy'
  | 'name+yyyy'
  | 'name+number'
  | 'nickname'
  | 'lastfirst'
  | 'first+digits'
  | 'handle'
  | 'odd';

export type FormShares = Readonly<Partial<Record<Form, number>>>;

/**
 * A person's own address, as honest customers (and abusers shopping under their own name) have
 * them. About four in five are built from the name (79 %): career and provider advice steer people
 * to first.last, and a personal address is given to banks, employers and family, so most people keep
 * one that says who they are. Among those, the plain forms lead and digits follow because the plain
 * name is usually taken at a large provider, whose sign-up page then suggests the name with digits
 * (Gmail's suggestions); the digits people pick are mostly birth years, as in passwords, where dates
 * are the most common digits (Veras et al., NDSS 2014). About one in seven keeps a hobby or word
 * handle (15 %), often the first address they made as a teenager in the screen-name era, and a few
 * have odd-looking ones (6 %): auto-assigned ISP ids, a phone number as the local part, strings made
 * by people who do not want their name in it.
 */
export const PERSONAL_FORMS: FormShares = {
  /** The most advised and most common form. */
  'first.last': 0.18,
  /** The same without the dot (Gmail ignores dots, so many never typed one). */
  firstlast: 0.12,
  /** Initial and surname: the common work form, carried over to personal addresses. */
  flast: 0.09,
  first_last: 0.03,
  firstl: 0.03,
  'first.m.last': 0.02,
  /** Birth years: the name was taken, and the year is the number people remember. */
  'name+yy': 0.09,
  'name+yyyy': 0.05,
  /** Other numbers: a lucky number, a house number, the suggestion the provider offered. */
  'name+number': 0.05,
  nickname: 0.04,
  lastfirst: 0.03,
  'first+digits': 0.06,
  handle: 0.15,
  odd: 0.06,
};

/**
 * An address made to be thrown away: random-looking strings mostly (quick to make, nothing to
 * remember), some word handles.
 */
const THROWAWAY_FORMS: FormShares = { odd: 0.7, handle: 0.3 };

/**
 * A chargeback ring's fresh e-mails, made for the fraud: built from the name the order carries (the
 * cardholder's or a made-up one) on about three in five (60 %), since fraud guides advise an e-mail
 * matching the name on the card so that a manual review sees nothing odd; made in bulk at providers
 * where the plain name is long taken, so mostly with digits (47 of the 60); the rest throwaway-looking
 * (40 %), from rings that do not bother.
 */
export const RING_FORMS: FormShares = {
  'first.last': 0.05,
  firstlast: 0.05,
  flast: 0.03,
  'name+yy': 0.12,
  'name+yyyy': 0.08,
  'name+number': 0.17,
  'first+digits': 0.08,
  lastfirst: 0.02,
  handle: 0.1,
  odd: 0.3,
};

/**
 * A bot wave's addresses: ordinary-looking (eval/README.md), so made by the account-creation script
 * from the name it fills in (87 %), nearly always with digits, the way name generators append them to
 * get an address nobody holds; the rest word handles with digits (13 %). No random strings: the
 * point of the wave is to look like ordinary customers.
 */
export const BURST_FORMS: FormShares = {
  'first.last': 0.1,
  firstlast: 0.08,
  flast: 0.05,
  'name+yy': 0.2,
  'name+yyyy': 0.12,
  'name+number': 0.2,
  'first+digits': 0.1,
  lastfirst: 0.02,
  handle: 0.13,
};

/**
 * How a person makes a new address: on `variation` a variation of the address he already has (when
 * the pattern gives one), else one built the way `forms` say, from the account's name.
 */
export interface AddressHabits {
  variation?: number;
  forms: FormShares;
}

/** The share of each form in a mix of form shares (each list weighed by its share of the mix). */
function blend(...parts: readonly (readonly [FormShares, number])[]): FormShares {
  const mixed: Partial<Record<Form, number>> = {};
  for (const [forms, weight] of parts)
    for (const [form, share] of Object.entries(forms) as [Form, number][])
      mixed[form] = (mixed[form] ?? 0) + share * weight;
  return mixed;
}

/** An honest customer's own address. */
export const PERSONAL: AddressHabits = { forms: PERSONAL_FORMS };
/** A chargeback ring's fresh e-mails (also the rings that come back after a chargeback). */
export const RING_ADDRESSES: AddressHabits = { forms: RING_FORMS };
/** A bot wave's ordinary-looking e-mails. */
export const BURST_ADDRESSES: AddressHabits = { forms: BURST_FORMS };
/**
 * A multi-accounter's later accounts: a variation of his first address on 45 % (a digit added, a
 * plus tag, a dot moved: bonus-abuse forums teach Gmail's dot and plus tricks, and the same local
 * part at another provider is the easiest new address there is); otherwise a new address, built from
 * the account's name as people build theirs (his own, a variation of it, or the made-up one) on
 * 65 % of the rest, throwaway-looking on 35 %.
 */
export const MULTI_ACCOUNT_ADDRESSES: AddressHabits = {
  variation: 0.45,
  forms: blend([PERSONAL_FORMS, 0.65], [THROWAWAY_FORMS, 0.35]),
};
/**
 * A self-referrer's referees: a referral program rejects an obvious copy of the referrer's address
 * more often than a bonus program does, so a variation of his own on 25 % only; otherwise built from
 * the referee's name (a relative's, made up, or his own varied) on 75 % of the rest, a throwaway on
 * 25 %.
 */
export const REFEREE_ADDRESSES: AddressHabits = {
  variation: 0.25,
  forms: blend([PERSONAL_FORMS, 0.75], [THROWAWAY_FORMS, 0.25]),
};
/**
 * Who comes back after an empty box: the abuser's own second address (a variation of his first on
 * 25 %), a relative's own inbox or one made for the made-up name (built from the account's name on
 * 80 % of the rest), a throwaway on 20 %.
 */
export const COMEBACK_ADDRESSES: AddressHabits = {
  variation: 0.25,
  forms: blend([PERSONAL_FORMS, 0.8], [THROWAWAY_FORMS, 0.2]),
};
/**
 * The address an attacker puts on a taken-over account: a look-alike of the victim's on 40 % (so the
 * account's owner, or the merchant's support, does not notice at a glance), else a throwaway.
 */
export const TAKEOVER_ADDRESSES: AddressHabits = { variation: 0.4, forms: THROWAWAY_FORMS };

/** How a variation of an address is made, and on which share. */
const VARIATIONS = [
  /** A digit or a birth year appended: the obvious second address. */
  ['digits', 0.4],
  /** A plus tag: the same inbox, a new address to the merchant. */
  ['plus', 0.25],
  /** A dot added or taken out: Gmail delivers it to the same inbox. */
  ['dots', 0.2],
  /** The same local part, at the account's own provider (another one, mostly). */
  ['same', 0.15],
] as const;
const PLUS_TAGS = ['shop', 'deals', 'promo', 'new', 'buy', '1', '2', '3'];

// Words of hobby handles; none of them is a listed name, so a handle never shows a name by chance.
const ADJECTIVES = `sunny happy lucky crazy silver blue wild cool sweet quiet rusty sleepy brave cosmic lazy
  mighty shiny fuzzy salty spicy purple urban retro tiny magic`.split(/\s+/);
const NOUNS = `hiker rider runner gamer surfer skater tiger eagle dragon panda otter falcon kitty bunny pirate
  ninja wizard rocket muffin pickle biker ranger dreamer traveler angler camper golfer chef`.split(/\s+/);
const HOBBIES =
  `soccer guitar yoga fishing hockey pizza coffee beach garden music book disney camping jeep horse
  cat dog`.split(/\s+/);
const ROLES = ['mom', 'dad', 'guy', 'girl', 'lover', 'fan', 'nut', 'junkie', 'queen', 'boy'];
/** The words a handle is made of: an adjective and a noun, or a hobby and a role. */
export const HANDLE_WORDS = { ADJECTIVES, NOUNS, HOBBIES, ROLES } as const;
const MIDDLE_INITIALS = 'aajjmmllrrdeskcptw';
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** A name as it goes into an address: lower-case letters only (O'Brien: obrien). */
export const letters = (name: string) =>
  name
    .normalize('NFD')
    .replace(/[^A-Za-z]/g, '')
    .toLowerCase();

const pick = <T>(items: readonly T[], draw: number): T => items[Math.floor(draw * items.length)]!;

/** A person's numbers, fixed by the account's key: a birth year, and a small number not shaped like one. */
function numbers(key: string) {
  const born = stableChance(`born:${key}`);
  const small = stableChance(`number:${key}`);
  return {
    yy: String(1970 + Math.floor(born * 36)).slice(2),
    yyyy: String(1955 + Math.floor(born * 51)),
    number: String(
      small < 0.6 ? 1 + Math.floor((small / 0.6) * 69) : 100 + Math.floor(((small - 0.6) / 0.4) * 900),
    ),
  };
}

function randomString(key: string, length: number, alphabet: string): string {
  return Array.from({ length }, (_, i) => pick([...alphabet], stableChance(`${key}:${i}`))).join('');
}

/** The local part of `form` for `name`, its choices fixed by `key`. */
function localPart(form: Form, name: PersonName, key: string): string {
  const first = letters(name.firstName) || 'x';
  const last = letters(name.surname) || 'x';
  const { yy, yyyy, number } = numbers(key);
  const draw = stableChance(`form-detail:${key}`);
  switch (form) {
    case 'first.last':
      return `${first}.${last}`;
    case 'firstlast':
      return `${first}${last}`;
    case 'flast':
      return `${first[0]}${last}`;
    case 'first_last':
      return `${first}_${last}`;
    case 'firstl':
      return `${first}${last[0]}`;
    case 'first.m.last':
      return `${first}.${pick([...MIDDLE_INITIALS], draw)}.${last}`;
    case 'name+yy':
      return `${pick([`${first}.${last}`, `${first}${last}`, `${first[0]}${last}`], draw)}${yy}`;
    case 'name+yyyy':
      return `${pick([`${first}.${last}`, `${first}${last}`], draw)}${yyyy}`;
    case 'name+number':
      return `${pick([`${first}.${last}`, `${first}${last}`, `${first[0]}${last}`], draw)}${number}`;
    case 'nickname': {
      const nicknames = nicknamesOf(name.firstName);
      const nickname = nicknames.length > 0 ? letters(pick(nicknames, draw)) : first;
      return `${nickname}${draw < 0.5 ? '.' : ''}${last}${stableChance(`nick-year:${key}`) < 0.5 ? yy : ''}`;
    }
    case 'lastfirst':
      return `${last}${draw < 0.6 ? '' : '.'}${first}`;
    case 'first+digits':
      return `${first}${pick([yy, yyyy, number], draw)}`;
    case 'handle': {
      const words =
        draw < 0.5
          ? `${pick(ADJECTIVES, stableChance(`word-a:${key}`))}${pick(NOUNS, stableChance(`word-b:${key}`))}`
          : `${pick(HOBBIES, stableChance(`word-a:${key}`))}${pick(ROLES, stableChance(`word-b:${key}`))}`;
      const digits = stableChance(`handle-digits:${key}`);
      return `${words}${digits < 0.5 ? yy : digits < 0.85 ? number : ''}`;
    }
    case 'odd': {
      if (draw < 0.5)
        return `${pick([...LETTERS], stableChance(`odd-start:${key}`))}${randomString(`odd:${key}`, 7 + Math.floor(stableChance(`odd-length:${key}`) * 5), 'abcdefghijkmnpqrstuvwxyz23456789')}`;
      if (draw < 0.75)
        return `${1 + Math.floor(stableChance(`odd-lead:${key}`) * 9)}${randomString(`odd:${key}`, 9, '0123456789')}`;
      return `${first[0]}${last[0]}${randomString(`odd:${key}`, 4 + Math.floor(stableChance(`odd-length:${key}`) * 3), '0123456789')}`;
    }
  }
}

/** A variation of the local part `earlier` (a second address of the same person), fixed by `key`. */
function variationOf(earlier: string, key: string): string {
  const how = weighted(VARIATIONS, stableChance(`variation:${key}`));
  const draw = stableChance(`variation-detail:${key}`);
  const { yy } = numbers(key);
  if (how === 'plus') return `${earlier.split('+')[0]}+${pick(PLUS_TAGS, draw)}`;
  if (how === 'same') return earlier;
  if (how === 'dots') {
    if (earlier.includes('.')) return earlier.replace('.', '');
    // Between two letters or digits only: an address has no leading, trailing or double dot.
    const spots = [...earlier].flatMap((c, i) =>
      i > 0 && /[a-z0-9]/.test(c) && /[a-z0-9]/.test(earlier[i - 1]!) ? [i] : [],
    );
    if (spots.length > 0) {
      const at = pick(spots, draw);
      return `${earlier.slice(0, at)}.${earlier.slice(at)}`;
    }
  }
  return `${earlier}${draw < 0.6 ? String(1 + Math.floor((draw / 0.6) * 9)) : yy}`;
}

/**
 * Addresses taken in one world of traffic (one random stream: a timeline, a history file, the
 * network scenario), so that two people never hold the same address: as at a provider, a taken one
 * makes its owner add digits. An address is taken with the one the small-domain mix moves it to
 * (eval/email-mix.ts), so that sweep point keeps them apart too.
 */
const takenIn = new WeakMap<object, Set<string>>();

const taken = (world: object) => {
  const set = takenIn.get(world) ?? new Set<string>();
  takenIn.set(world, set);
  return set;
};

const keys = (local: string, provider: string) => {
  const address = `${local}@${provider}`;
  return [address, `${local}@${smallDomains(address)}`];
};

/** Digits added to a taken local part: the birth year first, then numbers of more and more digits. */
function untaken(local: string, key: string, attempt: number): string {
  if (attempt === 1) return `${local}${numbers(key).yy}`;
  const digits = 1 + Math.min(6, Math.floor(attempt / 3));
  return `${local}${Math.floor(stableChance(`taken:${key}:${attempt}`) * 10 ** digits)}`;
}

/**
 * The address the account of `mailbox` carries under `name`, made as `habits` say (a variation of
 * the person's `earlier` address, where the habits vary one). `replacing` is an address the same
 * account was given before its name was final: it is given back (no event carried it).
 */
export function issueAddress(
  world: object,
  mailbox: Mailbox,
  name: PersonName,
  options: { habits?: AddressHabits; earlier?: string; replacing?: string } = {},
): string {
  const { habits = PERSONAL, earlier, replacing } = options;
  const set = taken(world);
  if (replacing) {
    const [local, domain] = replacing.split('@') as [string, string];
    for (const key of keys(local, domain)) set.delete(key);
  }
  const key = mailbox.handle;
  const draw = stableChance(`address:${key}`);
  const variation = earlier === undefined ? 0 : (habits.variation ?? 0);
  const local =
    draw < variation
      ? variationOf(earlier!.split('@')[0]!, key)
      : localPart(
          weighted(Object.entries(habits.forms) as [Form, number][], (draw - variation) / (1 - variation)),
          name,
          key,
        );
  for (let attempt = 0; ; attempt++) {
    const candidate = attempt === 0 ? local : untaken(local, key, attempt);
    const candidates = keys(candidate, mailbox.provider);
    if (candidates.some((k) => set.has(k))) continue;
    for (const k of candidates) set.add(k);
    const address = candidates[0]!;
    return address;
  }
}

/** A provider other than `provider`, fixed by `key`: where a person moving his address goes. */
export function otherProvider(provider: string, key: string): string {
  const others = LARGE_PROVIDERS.filter((p) => p !== provider);
  return pick(others, stableChance(`provider:${key}`));
}

/** A large provider fixed by `key`, as the shoppers' draw spreads them (one in five each). */
export const providerOf = (key: string): string => pick(LARGE_PROVIDERS, stableChance(`provider:${key}`));
