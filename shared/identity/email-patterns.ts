/**
 * What an e-mail address alone says about a signup: a throwaway inbox, or a local part a script
 * made up. Pure functions over the normalized address.
 */

/** Well-known throwaway-inbox services (a starting list; providers' own lists are far longer). */
const DISPOSABLE_DOMAINS = new Set([
  '10minutemail.com',
  '20minutemail.com',
  'dispostable.com',
  'emailondeck.com',
  'fakeinbox.com',
  'getairmail.com',
  'getnada.com',
  'guerrillamail.com',
  'guerrillamail.net',
  'guerrillamailblock.com',
  'maildrop.cc',
  'mailinator.com',
  'mailnesia.com',
  'mintemail.com',
  'mohmal.com',
  'moakt.com',
  'sharklasers.com',
  'spambox.us',
  'temp-mail.org',
  'tempmail.com',
  'tempmail.net',
  'tempr.email',
  'throwawaymail.com',
  'trashmail.com',
  'yopmail.com',
  'yopmail.net',
]);

/**
 * Mailbox providers and ISPs shared by millions, by the domain's first label so country variants
 * (yahoo.co.uk, hotmail.fr) match too. A per-domain signup counter says nothing there and would be
 * one hot item that every signup writes (and transactions would conflict on), so they are not counted.
 */
const COMMON_PROVIDER_LABELS = new Set([
  'aol',
  'att',
  'btinternet',
  'comcast',
  'free',
  'gmail',
  'gmx',
  'googlemail',
  'hotmail',
  'icloud',
  'laposte',
  'libero',
  'live',
  'mail',
  'me',
  'msn',
  'naver',
  'orange',
  'outlook',
  'proton',
  'protonmail',
  'qq',
  'sbcglobal',
  't-online',
  'verizon',
  'web',
  'yahoo',
  'yandex',
  'ymail',
  'zoho',
  '126',
  '163',
]);

export function isDisposableDomain(domain: string): boolean {
  return DISPOSABLE_DOMAINS.has(domain) || [...DISPOSABLE_DOMAINS].some((d) => domain.endsWith(`.${d}`));
}

export function isCommonProvider(domain: string): boolean {
  return COMMON_PROVIDER_LABELS.has(domain.split('.')[0] ?? '');
}

/**
 * How machine-made the local part looks, 0 to 1: 1 for a hex blob, a long consonant run or digits
 * and letters alternating like a random token; 0.5 for a long digit run (a human may add a year,
 * rarely five digits or more); 0 for anything a person would pick.
 */
export function machineGeneratedScore(normalizedEmail: string): number {
  const local = normalizedEmail.split('@')[0] ?? '';
  const compact = local.replace(/[._-]/g, '');
  if (/^[0-9a-f]{12,}$/.test(compact) && /\d/.test(compact)) return 1;
  if (/[bcdfghjklmnpqrstvwxz]{6,}/.test(compact)) return 1;
  const alternations = (compact.match(/[a-z]\d|\d[a-z]/g) ?? []).length;
  if (alternations >= 4) return 1;
  if (/\d{5,}/.test(compact)) return 0.5;
  return 0;
}

/**
 * Letters a stem needs to name a person: shorter ones (`js`, `jen`) are shared by many people; `jsmith`
 * and the hobby handles are not.
 */
const MIN_STEM_LETTERS = 4;

/**
 * What stays of a normalized address's local part when the usual ways of making another address of
 * one's own are undone: separators (`john.smith`, `john_smith`) and trailing digits (`jsmith84`,
 * `jsmith2`); plus tags and Gmail's dots are gone already (normalizeEmail), and the provider is left
 * out (the same local part at another provider). Multi-account abusers make their next address so
 * ("e-mail tumbling"); different people rarely share one. Undefined when too short to say.
 */
export function emailStem(normalizedEmail: string): string | undefined {
  const local = normalizedEmail.split('@')[0] ?? '';
  const stem = local.replace(/[._-]/g, '').replace(/\d+$/, '');
  return stem.length >= MIN_STEM_LETTERS ? stem : undefined;
}
