import type { SeededRandom } from '../../../eval/random.ts';

/**
 * The honest customers of a simulated shop: names, e-mails, homes, cards and devices as real people
 * have them. Most mail sits with a few big providers, some with regional ISPs and company or school
 * domains; households share a home, a family tablet and sometimes a card; colleagues share a domain
 * and an office. Written from what real traffic looks like, not from what the service looks for.
 */
export interface Address {
  line1: string;
  line2?: string;
  city: string;
  state: string;
  postalCode: string;
  country: string;
}

export interface Card {
  instrument: 'CC-A' | 'DC-A';
  BIN: string;
  last4: string;
  expiry: string;
}

export interface Person {
  /** The shop's customer id (also for people who never sign up: it is theirs once they do). */
  customerId: string;
  firstName: string;
  lastName: string;
  email: string;
  /** What they type at login: the e-mail, or a handle they picked. */
  username: string;
  phone?: string;
  home: Address;
  /** Where a colleague has parcels sent at work. */
  office?: Address;
  /** Their devices, the usual one first (a household's family tablet is among them). */
  devices: string[];
  cards: Card[];
}

const FIRST_NAMES = [
  'James',
  'Mary',
  'Robert',
  'Patricia',
  'John',
  'Jennifer',
  'Michael',
  'Linda',
  'David',
  'Elizabeth',
  'William',
  'Barbara',
  'Richard',
  'Susan',
  'Joseph',
  'Jessica',
  'Thomas',
  'Sarah',
  'Carlos',
  'Karen',
  'Daniel',
  'Lisa',
  'Matthew',
  'Nancy',
  'Anthony',
  'Sandra',
  'Mark',
  'Ashley',
  'Steven',
  'Emily',
  'Andrew',
  'Michelle',
  'Joshua',
  'Amanda',
  'Kevin',
  'Melissa',
  'Brian',
  'Stephanie',
  'Wei',
  'Rebecca',
  'Luis',
  'Laura',
  'Jason',
  'Nicole',
  'Priya',
  'Olivia',
  'Ethan',
  'Sophia',
  'Noah',
  'Emma',
  'Liam',
  'Ava',
  'Mateo',
  'Isabella',
  'Aiden',
  'Mia',
  'Hannah',
  'Omar',
  'Fatima',
  'Yuki',
  'Kenji',
  'Chloe',
  'Grace',
  'Lucas',
  'Zoe',
  'Diego',
  'Aaliyah',
  'Jamal',
  'Tyler',
  'Brittany',
  'Megan',
  'Ryan',
  'Nora',
  'Samuel',
  'Leah',
  'Arjun',
  'Maya',
  'Gabriel',
  'Elena',
  'Tomás',
  'Anh',
  'Minh',
  'Ines',
];

const LAST_NAMES = [
  'Smith',
  'Johnson',
  'Williams',
  'Brown',
  'Jones',
  'Garcia',
  'Miller',
  'Davis',
  'Rodriguez',
  'Martinez',
  'Hernandez',
  'Lopez',
  'Gonzalez',
  'Wilson',
  'Anderson',
  'Thomas',
  'Taylor',
  'Moore',
  'Jackson',
  'Martin',
  'Lee',
  'Perez',
  'Thompson',
  'White',
  'Harris',
  'Sanchez',
  'Clark',
  'Ramirez',
  'Lewis',
  'Robinson',
  'Walker',
  'Young',
  'Allen',
  'King',
  'Wright',
  'Scott',
  'Torres',
  'Nguyen',
  'Hill',
  'Flores',
  'Green',
  'Adams',
  'Nelson',
  'Baker',
  'Hall',
  'Rivera',
  'Campbell',
  'Mitchell',
  'Carter',
  'Roberts',
  'Patel',
  'Kim',
  'Chen',
  'Wang',
  "O'Brien",
  'Murphy',
  'Kowalski',
  'Schmidt',
  'Müller',
  'Rossi',
  'Dubois',
  'Okafor',
  'Haddad',
  'Singh',
  'Shah',
  'Tanaka',
  'Sato',
  'Cohen',
  'Fischer',
  'Larsen',
  'Novak',
];

/** Share of people per mailbox kind; the big providers by their rough market shares. */
const BIG_PROVIDERS: readonly (readonly [string, number])[] = [
  ['gmail.com', 44],
  ['yahoo.com', 10],
  ['icloud.com', 8],
  ['outlook.com', 6],
  ['hotmail.com', 6],
  ['aol.com', 2],
];
const REGIONAL_PROVIDERS = [
  'comcast.net',
  'att.net',
  'sbcglobal.net',
  'verizon.net',
  'cox.net',
  'charter.net',
  'bellsouth.net',
  'optonline.net',
  'earthlink.net',
  'frontier.com',
  'windstream.net',
  'live.com',
  'msn.com',
  'me.com',
  'ymail.com',
  'protonmail.com',
  'mail.com',
  'gmx.com',
  'zoho.com',
  'fastmail.com',
];
/** Mailboxes abroad, with the country the person lives in. */
const FOREIGN_PROVIDERS: readonly (readonly [string, string])[] = [
  ['shaw.ca', 'CA'],
  ['rogers.com', 'CA'],
  ['sympatico.ca', 'CA'],
  ['btinternet.com', 'GB'],
  ['yahoo.co.uk', 'GB'],
  ['sky.com', 'GB'],
  ['gmx.de', 'DE'],
  ['web.de', 'DE'],
  ['t-online.de', 'DE'],
  ['orange.fr', 'FR'],
  ['free.fr', 'FR'],
];
const SCHOOL_DOMAINS = ['umich.edu', 'utexas.edu', 'asu.edu', 'osu.edu', 'ucla.edu', 'nyu.edu', 'purdue.edu'];

export interface Company {
  domain: string;
  office: Address;
}

const COMPANY_DOMAINS = [
  'brightwater-labs.com',
  'northgate-logistics.com',
  'cedarpoint-health.org',
  'ashfield-partners.com',
  'kiteline.io',
  'meridiandental.com',
  'blueoakschool.org',
  'harlowfinch.com',
  'tallgrass-energy.com',
  'quillmetrics.com',
  'sunviewrealty.com',
  'pinecrestclinic.org',
  'lumenarchitects.com',
  'redfernlaw.com',
  'copperleaf.co',
  'granitebay-insurance.com',
  'orchardsoftware.com',
  'mapleandrye.com',
];

const CITIES: Record<string, readonly (readonly [string, string, string])[]> = {
  US: [
    ['Austin', 'TX', '787'],
    ['Columbus', 'OH', '432'],
    ['Portland', 'OR', '972'],
    ['Charlotte', 'NC', '282'],
    ['Denver', 'CO', '802'],
    ['Tampa', 'FL', '336'],
    ['Brooklyn', 'NY', '112'],
    ['Chicago', 'IL', '606'],
    ['Phoenix', 'AZ', '850'],
    ['Seattle', 'WA', '981'],
    ['Atlanta', 'GA', '303'],
    ['Minneapolis', 'MN', '554'],
    ['San Diego', 'CA', '921'],
    ['Nashville', 'TN', '372'],
    ['Boston', 'MA', '021'],
    ['Pittsburgh', 'PA', '152'],
    ['Kansas City', 'MO', '641'],
    ['Raleigh', 'NC', '276'],
    ['Salt Lake City', 'UT', '841'],
    ['Richmond', 'VA', '232'],
    ['Omaha', 'NE', '681'],
    ['Madison', 'WI', '537'],
    ['Tucson', 'AZ', '857'],
    ['Sacramento', 'CA', '958'],
    ['Louisville', 'KY', '402'],
    ['Albany', 'NY', '122'],
  ],
  CA: [
    ['Toronto', 'ON', 'M5V'],
    ['Vancouver', 'BC', 'V6B'],
    ['Calgary', 'AB', 'T2P'],
    ['Ottawa', 'ON', 'K1P'],
  ],
  GB: [
    ['London', 'Greater London', 'N1'],
    ['Manchester', 'Greater Manchester', 'M1'],
    ['Leeds', 'West Yorkshire', 'LS1'],
  ],
  DE: [
    ['Berlin', 'BE', '101'],
    ['München', 'BY', '803'],
    ['Hamburg', 'HH', '203'],
  ],
  FR: [
    ['Paris', 'IDF', '750'],
    ['Lyon', 'ARA', '690'],
    ['Bordeaux', 'NAQ', '330'],
  ],
};
const STREETS = [
  'Maple',
  'Oak',
  'Cedar',
  'Pine',
  'Elm',
  'Washington',
  'Lake',
  'Hill',
  'Park',
  'Main',
  'Church',
  'Highland',
  'Sunset',
  'Ridge',
  'River',
  'Meadow',
  'Forest',
  'Willow',
  'Jefferson',
  'Lincoln',
  'Franklin',
  'Madison',
  'Spring',
  'Chestnut',
  'Walnut',
  'Cherry',
  'Birch',
  'Prospect',
  'Union',
  'Grove',
];
const STREET_KINDS = ['St', 'Ave', 'Rd', 'Dr', 'Ln', 'Ct', 'Blvd', 'Way', 'Pl'];
const AREA_CODES = [
  '512',
  '614',
  '503',
  '704',
  '720',
  '813',
  '718',
  '312',
  '602',
  '206',
  '404',
  '612',
  '619',
];
const COUNTRY_CALLING: Record<string, string> = { US: '+1', CA: '+1', GB: '+44', DE: '+49', FR: '+33' };

/** The card networks' common BINs: most people pay with one of a few big issuers' cards. */
const CREDIT_BINS = [
  '414720',
  '426684',
  '433610',
  '440393',
  '453970',
  '476173',
  '542418',
  '552433',
  '517805',
  '601100',
  '374245',
];
const DEBIT_BINS = ['400022', '410039', '422695', '446542', '498824', '511558', '531106'];

/** Parcel lockers: one address shared by thousands of honest customers. */
const PARCEL_LOCKERS: readonly Address[] = [
  {
    line1: '1520 Commerce St',
    line2: 'Locker Hub 0412',
    city: 'Austin',
    state: 'TX',
    postalCode: '78701',
    country: 'US',
  },
  {
    line1: '88 Market Plaza',
    line2: 'Parcel Locker 17',
    city: 'Chicago',
    state: 'IL',
    postalCode: '60601',
    country: 'US',
  },
  {
    line1: '400 Pine St',
    line2: 'Pickup Point 3',
    city: 'Seattle',
    state: 'WA',
    postalCode: '98101',
    country: 'US',
  },
];

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export class People {
  private readonly rng: SeededRandom;
  private readonly taken = new Set<string>();
  private nextCustomer: number;

  /** `firstCustomerNumber`: the shop's next customer id when it starts sending us traffic. */
  constructor(rng: SeededRandom, firstCustomerNumber = 2_104_000) {
    this.rng = rng;
    this.nextCustomer = firstCustomerNumber;
  }

  /** Someone with their own home, mailbox, phone, card and one or two devices. */
  person(options: { mailbox?: 'personal' | 'school'; lastName?: string; home?: Address } = {}): Person {
    const firstName = this.rng.pick(FIRST_NAMES);
    const lastName = options.lastName ?? this.rng.pick(LAST_NAMES);
    const { domain, country } = options.mailbox === 'school' ? this.schoolMailbox() : this.personalMailbox();
    const home = options.home ?? this.address(country);
    const email = this.uniqueEmail(this.localPart(firstName, lastName), domain);
    return this.withIdentity(firstName, lastName, email, home);
  }

  /** A colleague: a mailbox at the company, an office for parcels, and their own home and devices. */
  colleague(company: Company): Person {
    const firstName = this.rng.pick(FIRST_NAMES);
    const lastName = this.rng.pick(LAST_NAMES);
    const local = this.rng.chance(0.7) ? `${firstName}.${lastName}` : `${firstName[0]}${lastName}`;
    const email = this.uniqueEmail(plain(local), company.domain);
    return { ...this.withIdentity(firstName, lastName, email, this.address('US')), office: company.office };
  }

  /**
   * A household of `size`: one home, one family tablet in everyone's devices, mostly one surname;
   * a partner sometimes pays with the other's card.
   */
  household(size: number): Person[] {
    const first = this.person();
    const tablet = this.device();
    const members = [first];
    for (let i = 1; i < size; i++) {
      const lastName = this.rng.chance(0.75) ? first.lastName : undefined;
      members.push(this.person({ ...(lastName ? { lastName } : {}), home: first.home }));
    }
    for (const member of members) member.devices.push(tablet);
    for (const member of members.slice(1)) if (this.rng.chance(0.35)) member.cards.unshift(first.cards[0]!);
    return members;
  }

  company(): Company {
    return { domain: this.rng.pick(COMPANY_DOMAINS), office: this.address('US') };
  }

  /** A brand-new phone or laptop: a fingerprint never seen before. */
  device(): string {
    let id = '';
    for (let i = 0; i < 20; i++) id += ALPHANUMERIC[this.rng.int(0, ALPHANUMERIC.length - 1)];
    return id;
  }

  phone(country = 'US'): string {
    const digits = String(this.rng.int(2_000_000, 9_999_999));
    return country === 'US' || country === 'CA'
      ? `+1${this.rng.pick(AREA_CODES)}${digits}`
      : `${COUNTRY_CALLING[country] ?? '+1'}${this.rng.int(100, 799)}${digits}`;
  }

  card(): Card {
    const debit = this.rng.chance(0.35);
    return {
      instrument: debit ? 'DC-A' : 'CC-A',
      BIN: this.rng.pick(debit ? DEBIT_BINS : CREDIT_BINS),
      last4: String(this.rng.int(0, 9999)).padStart(4, '0'),
      expiry: `${String(this.rng.int(1, 12)).padStart(2, '0')}/${this.rng.int(27, 31)}`,
    };
  }

  address(country = 'US'): Address {
    const [city, state, postal] = this.rng.pick(CITIES[country] ?? CITIES.US!);
    const line1 = `${this.rng.int(1, 9899)} ${this.rng.pick(STREETS)} ${this.rng.pick(STREET_KINDS)}`;
    return {
      line1,
      ...(this.rng.chance(0.3)
        ? { line2: `Apt ${this.rng.int(1, 40)}${this.rng.pick(['', 'A', 'B'])}` }
        : {}),
      city,
      state,
      postalCode: postalCode(country, postal, this.rng),
      country,
    };
  }

  parcelLocker(): Address {
    return this.rng.pick(PARCEL_LOCKERS);
  }

  /** An existing customer's id (they had an account before the shop sent us anything). */
  existingCustomerId(): string {
    return this.uniqueCustomerId(() => `C${this.rng.int(1_000_000, 2_099_999)}`);
  }

  private withIdentity(firstName: string, lastName: string, email: string, home: Address): Person {
    const handle = plain(`${firstName}${lastName[0]}${this.rng.int(1, 999)}`);
    return {
      customerId: this.uniqueCustomerId(() => `C${this.nextCustomer++}`),
      firstName,
      lastName,
      email,
      username: this.rng.chance(0.65) ? email : handle,
      ...(this.rng.chance(0.8) ? { phone: this.phone(home.country) } : {}),
      home,
      devices: this.rng.chance(0.45) ? [this.device(), this.device()] : [this.device()],
      cards: this.rng.chance(0.2) ? [this.card(), this.card()] : [this.card()],
    };
  }

  private personalMailbox(): { domain: string; country: string } {
    const draw = this.rng.next();
    if (draw < 0.74) return { domain: weighted(this.rng, BIG_PROVIDERS), country: 'US' };
    if (draw < 0.93) return { domain: this.rng.pick(REGIONAL_PROVIDERS), country: 'US' };
    const [domain, country] = this.rng.pick(FOREIGN_PROVIDERS);
    return { domain, country };
  }

  private schoolMailbox(): { domain: string; country: string } {
    return { domain: this.rng.pick(SCHOOL_DOMAINS), country: 'US' };
  }

  /** How people name their mailboxes: names, initials, birth years, lucky numbers. */
  private localPart(first: string, last: string): string {
    const f = plain(first);
    const l = plain(last);
    const year = this.rng.int(1958, 2006);
    const patterns = [
      `${f}.${l}`,
      `${f}${l}`,
      `${f}.${l}${this.rng.int(1, 99)}`,
      `${f[0]}${l}`,
      `${f}${l}${year}`,
      `${f}_${l}`,
      `${l}.${f}`,
      `${f}${this.rng.int(10, 999)}`,
      `${f}.${l[0]}`,
      `${f[0]}${l}${String(year).slice(2)}`,
      `${f}${l[0]}${this.rng.int(1, 12)}${this.rng.int(1, 28)}`,
    ];
    return this.rng.pick(patterns);
  }

  /** A provider refuses a taken name, so people add a number. */
  private uniqueEmail(local: string, domain: string): string {
    let email = `${local}@${domain}`;
    while (this.taken.has(email)) email = `${local}${this.rng.int(2, 99)}@${domain}`;
    this.taken.add(email);
    return email;
  }

  private uniqueCustomerId(draw: () => string): string {
    let id = draw();
    while (this.taken.has(id)) id = draw();
    this.taken.add(id);
    return id;
  }
}

function plain(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[^A-Za-z0-9._]/g, '')
    .toLowerCase();
}

function postalCode(country: string, prefix: string, rng: SeededRandom): string {
  if (country === 'US') return `${prefix}${String(rng.int(0, 99)).padStart(2, '0')}`;
  if (country === 'CA')
    return `${prefix} ${rng.int(1, 9)}${rng.pick(['A', 'B', 'C', 'E', 'G'])}${rng.int(1, 9)}`;
  if (country === 'GB') return `${prefix} ${rng.int(1, 9)}${rng.pick(['AB', 'DE', 'GH', 'JQ', 'XY'])}`;
  return `${prefix}${String(rng.int(0, 99)).padStart(2, '0')}`;
}

/** One of `choices`, drawn with the given weights. */
export function weighted<T>(rng: SeededRandom, choices: readonly (readonly [T, number])[]): T {
  const total = choices.reduce((sum, [, weight]) => sum + weight, 0);
  let draw = rng.next() * total;
  for (const [value, weight] of choices) {
    draw -= weight;
    if (draw < 0) return value;
  }
  return choices.at(-1)![0];
}
