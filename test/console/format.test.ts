import { describe, expect, it } from 'vitest';
import {
  createFormat,
  DEFAULT_LOCALE,
  resolveLocale,
  textDirection,
  usableLocale,
} from '../../dashboard/src/format.ts';

/** The console's one formatter (dashboard/src/format.ts): the locale it picks and what it prints. */
describe('console locale', () => {
  it('is needed: Intl refuses the language Chromium reports under a POSIX locale', () => {
    expect(() => new Intl.NumberFormat('en-US@posix')).toThrow(RangeError);
    expect(() => new Intl.DateTimeFormat('en-US@posix')).toThrow(RangeError);
    expect(() => Intl.NumberFormat.supportedLocalesOf('en-US@posix')).toThrow(RangeError);
    expect(usableLocale('en-US@posix')).toBeUndefined();
  });

  it.each([
    [['en-US@posix'], 'en-US'],
    [['en_US.UTF-8@posix'], 'en-US'],
    [['de_DE.UTF-8'], 'de-DE'],
    [['EN-gb'], 'en-GB'],
    [['ar-EG', 'en-US'], 'ar-EG'],
    [['', undefined, 'fr-FR'], 'fr-FR'],
    [['C', 'de-DE'], 'de-DE'],
    [['not a tag!', 'x'], DEFAULT_LOCALE],
    [['C.UTF-8'], DEFAULT_LOCALE],
    [[], DEFAULT_LOCALE],
  ])('picks from %j: %s', (candidates, expected) => {
    expect(resolveLocale(candidates)).toBe(expected);
  });

  it('builds working formatters for whatever it picked', () => {
    for (const candidates of [['en-US@posix'], ['C'], ['de-DE'], ['ar-EG']]) {
      const format = createFormat(resolveLocale(candidates));
      expect(format.number(1234.5)).not.toBe('');
      expect(format.dateTime('2026-11-25T10:30:00Z')).not.toBe('');
    }
  });

  it('reads right to left for Arabic and Hebrew scripts, left to right otherwise', () => {
    expect(textDirection('ar-EG')).toBe('rtl');
    expect(textDirection('he')).toBe('rtl');
    expect(textDirection('fa-IR')).toBe('rtl');
    expect(textDirection('ur-PK')).toBe('rtl');
    expect(textDirection('de-DE')).toBe('ltr');
    expect(textDirection('en-US')).toBe('ltr');
    expect(textDirection('ja-JP')).toBe('ltr');
  });
});

describe('console format', () => {
  const en = createFormat('en-GB');
  const de = createFormat('de-DE');
  const ar = createFormat('ar-EG');

  it('formats numbers in the locale, up to three decimals by default', () => {
    expect(en.number(1234.5)).toBe('1,234.5');
    expect(de.number(1234.5)).toBe('1.234,5');
    expect(ar.number(1234.5)).toBe('١٬٢٣٤٫٥');
    expect(en.number(0.123456)).toBe('0.123');
    expect(en.number(-0.5, 1)).toBe('-0.5');
    expect(en.number(20_000)).toBe('20,000');
  });

  it('counts with the noun in the right number', () => {
    expect(en.count(1, 'row')).toBe('1 row');
    expect(en.count(2, 'row')).toBe('2 rows');
    expect(de.count(1200, 'decision')).toBe('1.200 decisions');
    expect(ar.count(3, 'return')).toBe('٣ returns');
  });

  it('shows a UTC day as that day whatever the time zone', () => {
    expect(en.day('2026-11-25')).toBe('25 Nov');
    expect(en.day(Date.UTC(2026, 10, 25))).toBe('25 Nov');
    expect(de.day('2026-11-25')).toBe('25. Nov.');
    expect(ar.day('2026-11-25')).toMatch(/^٢٥ /);
  });

  it('formats dates and times in the locale', () => {
    expect(de.date('2026-11-25T10:30:00Z')).toMatch(/^2[56]\.11\.2026$/);
    expect(ar.date('2026-11-25T10:30:00Z')).toMatch(/٢٠٢٦/);
    expect(en.dateTime('2026-11-25T10:30:00Z')).toMatch(/^2[56] Nov 2026, \d\d:\d\d$/);
  });

  it('knows its direction', () => {
    expect(ar.direction).toBe('rtl');
    expect(de.direction).toBe('ltr');
  });
});
