import { nounFor } from '../../shared/plural.ts';

/**
 * Every date, time and number the console shows goes through `format`, built once from the
 * browser's languages. A browser may report a language `Intl` refuses (Chromium started under a
 * POSIX locale says `en-US@posix`, and `new Intl.NumberFormat('en-US@posix')` throws RangeError), so
 * the locale is chosen here, once, and falls back rather than throwing: a console that cannot
 * format a number must still render.
 */
export const DEFAULT_LOCALE = 'en-GB';

/** The tag in canonical form if `Intl` accepts it, else undefined (never throws). */
export function usableLocale(tag: string | undefined): string | undefined {
  if (!tag) return undefined;
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined; // RangeError: not a BCP 47 tag
  }
}

/** `en_US.UTF-8@posix` → `en-US`: a POSIX locale name as the BCP 47 tag it stands for. */
const withoutPosixParts = (tag: string) => tag.replace(/@.*$/, '').replace(/\..*$/, '').replaceAll('_', '-');

/**
 * The first of the browser's languages `Intl` accepts, as sent or without its POSIX parts;
 * DEFAULT_LOCALE when none is.
 */
export function resolveLocale(candidates: readonly (string | undefined)[]): string {
  for (const tag of candidates) {
    const usable = usableLocale(tag) ?? usableLocale(tag && withoutPosixParts(tag));
    if (usable) return usable;
  }
  return DEFAULT_LOCALE;
}

/** Scripts written right to left (Unicode script codes, as `Intl.Locale.maximize()` names them). */
const RTL_SCRIPTS = new Set(['Arab', 'Hebr', 'Thaa', 'Syrc', 'Nkoo', 'Adlm', 'Rohg', 'Mand', 'Samr']);

/** The direction a locale's script is written in: `ar-EG` → rtl, `de-DE` → ltr. */
export function textDirection(locale: string): 'ltr' | 'rtl' {
  const script = new Intl.Locale(locale).maximize().script;
  return script && RTL_SCRIPTS.has(script) ? 'rtl' : 'ltr';
}

type When = string | number | Date;
const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

export interface Format {
  /** The locale everything is formatted in (what `resolveLocale` chose). */
  readonly locale: string;
  readonly direction: 'ltr' | 'rtl';
  /** A whole number or a decimal with up to `fractionDigits` digits (3 by default). */
  number(value: number, fractionDigits?: number): string;
  /** `1 row`, `2 rows`: the count formatted, the noun in the right number. */
  count(value: number, singular: string, pluralForm?: string): string;
  /** A moment, date and time, in the browser's time zone. */
  dateTime(value: When): string;
  /** A moment's date, in the browser's time zone. */
  date(value: When): string;
  /** A calendar day the API counts in (UTC): `2026-11-25`, or the epoch milliseconds of its start. */
  day(value: When): string;
}

export function createFormat(locale: string): Format {
  const numbers = new Map<number, Intl.NumberFormat>();
  const numberFormat = (digits: number) => {
    let formatter = numbers.get(digits);
    if (!formatter) {
      formatter = new Intl.NumberFormat(locale, { maximumFractionDigits: digits });
      numbers.set(digits, formatter);
    }
    return formatter;
  };
  const dateTime = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });
  const date = new Intl.DateTimeFormat(locale, { dateStyle: 'medium' });
  const day = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', timeZone: 'UTC' });
  const toDate = (value: When) =>
    value instanceof Date
      ? value
      : new Date(typeof value === 'string' && DAY_PATTERN.test(value) ? `${value}T00:00:00Z` : value);
  return {
    locale,
    direction: textDirection(locale),
    number: (value, fractionDigits = 3) => numberFormat(fractionDigits).format(value),
    count: (value, singular, pluralForm) =>
      `${numberFormat(0).format(value)} ${nounFor(value, singular, pluralForm)}`,
    dateTime: (value) => dateTime.format(toDate(value)),
    date: (value) => date.format(toDate(value)),
    day: (value) => day.format(toDate(value)),
  };
}

/** The browser's languages, most preferred first (none outside a browser). */
const browserLanguages = (): string[] =>
  typeof navigator === 'undefined' ? [] : [...(navigator.languages ?? []), navigator.language];

/** The console's formatter: the browser's first usable language, else DEFAULT_LOCALE. */
export const format: Format = createFormat(resolveLocale(browserLanguages()));
