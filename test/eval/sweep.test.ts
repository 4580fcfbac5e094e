import { describe, expect, it } from 'vitest';
import { smallDomains } from '../../eval/email-mix.ts';
import { asSent } from '../../eval/integration.ts';
import type { ScoredEvent } from '../../eval/metrics.ts';
import { agoWithin, logUniform, NOMINAL, NOMINAL_AGE, scaledCount } from '../../eval/params.ts';
import { LEGITIMATE } from '../../eval/patterns.ts';
import { SeededRandom } from '../../eval/random.ts';
import { scheduleTraffic } from '../../eval/schedule.ts';
import { SWEEP_POINTS } from '../../eval/sweep-points.ts';
import {
  formatShare,
  invariantBreaks,
  type PointSummary,
  poolSweeps,
  readSweepFile,
  summarizePoint,
  withEvidence,
  worstCase,
} from '../../eval/worst-case.ts';

const DAY = 86_400_000;
const END = 1_790_000_000_000;

describe('sweep parameters', () => {
  it('draws log-uniformly inside the range, as often below the geometric mean as above', () => {
    const rng = new SeededRandom(1);
    const draws = Array.from({ length: 2000 }, () => logUniform(rng, [60_000, 90 * DAY]));
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(60_000);
    expect(Math.max(...draws)).toBeLessThanOrEqual(90 * DAY);
    const middle = Math.sqrt(60_000 * 90 * DAY);
    const below = draws.filter((d) => d < middle).length / draws.length;
    expect(below).toBeGreaterThan(0.45);
    expect(below).toBeLessThan(0.55);
  });

  it('takes no draw for a range of one value, and refuses an empty or non-positive range', () => {
    const rng = new SeededRandom(1);
    expect(logUniform(rng, [5, 5])).toBe(5);
    expect(rng.next()).toBe(new SeededRandom(1).next());
    expect(() => logUniform(rng, [0, 5])).toThrow();
    expect(() => logUniform(rng, [6, 5])).toThrow();
  });

  it('scales counts and compresses offsets into the merchant age, the identity at nominal', () => {
    expect(scaledCount(30, 1)).toBe(30);
    expect(scaledCount(30, 0.5)).toBe(15);
    expect(scaledCount(10, 0.02)).toBe(0);
    expect(agoWithin(123 * DAY, NOMINAL_AGE)).toBe(123 * DAY);
    expect(agoWithin(NOMINAL_AGE, DAY)).toBe(DAY);
    expect(agoWithin(NOMINAL_AGE / 2, 7 * DAY)).toBe(3.5 * DAY);
  });
});

describe('the traffic under sweep parameters', () => {
  it('plays nothing after the end, and a first-day merchant only within its day', () => {
    expect(scheduleTraffic(7, END).every((s) => s.at <= END)).toBe(true);
    const firstDay = scheduleTraffic(7, END, { ...NOMINAL, merchantAge: DAY });
    expect(firstDay.length).toBeGreaterThan(1000);
    expect(firstDay.every((s) => s.at >= END - DAY && s.at <= END)).toBe(true);
  });

  it.each([
    ['a year-old merchant', NOMINAL_AGE, 365],
    ["the sale point's 60-day merchant", 60 * DAY, 60],
  ])('brings about nine of its usual days into the sale day of %s', (_, merchantAge, days) => {
    const sale = { from: END - 21 * DAY, until: END - 20 * DAY };
    const inSale = (steps: { at: number }[]) =>
      steps.filter((s) => s.at >= sale.from && s.at < sale.until).length;
    const usual = scheduleTraffic(7, END, { ...NOMINAL, merchantAge });
    const busy = scheduleTraffic(7, END, { ...NOMINAL, merchantAge, saleDayEndsBefore: 20 * DAY });
    const perDay = usual.length / days;
    expect(inSale(busy) - inSale(usual)).toBeGreaterThan(4 * perDay);
    expect(inSale(busy) - inSale(usual)).toBeLessThan(20 * perDay);
  });

  it('measures the sale point on enough events to read a 0.5 % budget against', () => {
    const point = SWEEP_POINTS.find((p) => p.name === 'sale day');
    if (!point?.measured) throw new Error('no sale day point');
    const { from, until } = point.measured;
    const onSaleDay = scheduleTraffic(7, END, point.params).filter(
      (s) => s.at >= END - from && s.at < END - until && s.label?.pattern === LEGITIMATE,
    );
    expect(onSaleDay.length).toBeGreaterThan(200);
  });

  it('sends no optional field at share 0, and every one at share 1', () => {
    const none = { orderDevice: 0, accountTimestamp: 0, signupPhone: 0, signupBilling: 0 };
    const all = { orderDevice: 1, accountTimestamp: 1, signupPhone: 1, signupBilling: 1 };
    const bodies = (fields: typeof none, path: string) =>
      scheduleTraffic(42, END, { ...NOMINAL, fields })
        .filter((s) => s.path === path)
        .map((s) => s.body as Record<string, unknown>);
    expect(bodies(none, '/v1/order').some((b) => 'deviceFingerprints' in b)).toBe(false);
    expect(bodies(none, '/v1/evaluate/login').some((b) => 'timestamp' in b)).toBe(false);
    const signups = bodies(all, '/v1/evaluate/signup');
    expect(signups.length).toBeGreaterThan(0);
    expect(
      signups.every((b) => JSON.stringify(b).includes('"Phone"') && JSON.stringify(b).includes('"Billing"')),
    ).toBe(true);
  });
});

describe('what the integration sends', () => {
  const order = {
    providerOrderId: 'o-1',
    deviceFingerprints: [{ deviceIdentifier: 'd' }],
    email: 'a.b@gmail.com',
  };

  it('leaves the body as written at the nominal parameters', () => {
    expect(asSent('/v1/order', order, NOMINAL)).toBe(order);
  });

  it('moves every e-mail to a small domain, the same one for the same address', () => {
    const sent = asSent('/v1/order', order, { ...NOMINAL, emailDomains: 'small' }) as typeof order;
    expect(sent.email).toBe(`a.b@${smallDomains('a.b@gmail.com')}`);
    expect(sent.email.endsWith('@gmail.com')).toBe(false);
    const domains = new Set(Array.from({ length: 500 }, (_, i) => smallDomains(`user${i}@gmail.com`)));
    expect(domains.size).toBeGreaterThan(150);
  });
});

const point = (
  name: string,
  caught: number,
  positives: number,
  declined: number,
  events: number,
  beforeEvidence = { positives: 0, caught: 0 },
): PointSummary => ({
  point: name,
  patterns: [
    {
      pattern: 'ring',
      eventTypes: 'order',
      positives,
      caught,
      auc: 0.99,
      beforeEvidence,
      aucWithEvidence: 0.99,
    },
  ],
  good: [{ eventType: 'order', events, declined, reviewed: events - declined > 0 ? 1 : 0 }],
});

describe('worst case and pooling', () => {
  it('takes the smallest caught share and the largest declined share, skipping points without events', () => {
    const worst = worstCase([point('a', 9, 10, 1, 100), point('b', 3, 4, 3, 200), point('c', 0, 0, 0, 0)]);
    expect(worst.caught.get('ring')).toEqual({ count: 3, of: 4, point: 'b' });
    expect(worst.declined.get('order')).toEqual({ count: 3, of: 200, point: 'b' });
  });

  it('prefers the share standing on more events when two are equal', () => {
    const worst = worstCase([point('small', 1, 2, 1, 100), point('large', 5, 10, 2, 200)]);
    expect(worst.caught.get('ring')?.point).toBe('large');
    expect(worst.declined.get('order')?.point).toBe('large');
  });

  it('pools seeds point by point by adding counts, and leaves no pooled AUC', () => {
    const pooled = poolSweeps([
      { points: [point('a', 9, 10, 1, 100)] },
      { points: [point('a', 1, 10, 2, 300)] },
    ]);
    expect(pooled).toHaveLength(1);
    expect(pooled[0]!.patterns[0]).toMatchObject({ positives: 20, caught: 10 });
    expect(pooled[0]!.patterns[0]!.auc).toBeNaN();
    expect(pooled[0]!.good[0]).toMatchObject({ events: 400, declined: 3 });
  });

  it('reads the positives decided once their evidence was in apart, and pools sweeps written before it', () => {
    const early = point('gaps', 5, 10, 0, 100, { positives: 5, caught: 1 });
    const worst = worstCase([point('nominal', 9, 10, 0, 100), early]);
    expect(worst.caught.get('ring')).toEqual({ count: 5, of: 10, point: 'gaps' });
    expect(worst.caughtWithEvidence.get('ring')).toEqual({ count: 4, of: 5, point: 'gaps' });
    // Caught 60 % in all, every positive decided with its evidence caught: the scores rank them.
    expect(invariantBreaks(point('gaps', 6, 10, 0, 100, { positives: 5, caught: 1 }))).toEqual([]);
    expect(invariantBreaks(point('gaps', 6, 10, 0, 100, { positives: 2, caught: 0 }))).toHaveLength(1);
    const { beforeEvidence: _, aucWithEvidence: __, ...written } = point('gaps', 9, 10, 0, 100).patterns[0]!;
    const old = readSweepFile(
      JSON.stringify({ seed: 1, points: [{ ...point('gaps', 9, 10, 0, 100), patterns: [written] }] }),
    );
    expect(old.unsplit).toBe(true);
    expect(old.sweep.points[0]!.patterns[0]).toMatchObject({ aucWithEvidence: 0.99 });
    const pooled = poolSweeps([old.sweep, { points: [early] }]);
    expect(pooled[0]!.patterns[0]!.beforeEvidence).toEqual({ positives: 5, caught: 1 });
  });

  it('reads back an AUC it could not compute as NaN, not as the AUC of every positive', () => {
    const allEarly = point('gaps', 4, 4, 0, 100, { positives: 4, caught: 4 });
    allEarly.patterns[0]!.aucWithEvidence = Number.NaN;
    const { sweep, unsplit } = readSweepFile(JSON.stringify({ seed: 1, points: [allEarly] }));
    expect(unsplit).toBe(false);
    expect(sweep.points[0]!.patterns[0]!.auc).toBe(0.99);
    expect(sweep.points[0]!.patterns[0]!.aucWithEvidence).toBeNaN();
  });

  it("counts a point's positives before their evidence from the played events", () => {
    const event = (label: 0 | 1, decision: string, beforeEvidence?: boolean): ScoredEvent => ({
      pattern: label ? 'ring' : LEGITIMATE,
      eventType: 'order',
      label,
      abuseScore: decision === 'APPROVE' ? 30 : 90,
      decision,
      ...(beforeEvidence ? { beforeEvidence } : {}),
    });
    const summary = summarizePoint(
      'p',
      [event(1, 'APPROVE', true), event(1, 'DECLINE', true), event(1, 'DECLINE'), event(0, 'APPROVE')],
      LEGITIMATE,
      ['order'],
    );
    expect(summary.patterns[0]).toMatchObject({
      positives: 3,
      caught: 2,
      beforeEvidence: { positives: 2, caught: 1 },
    });
    expect(withEvidence(summary.patterns[0]!)).toEqual({ count: 1, of: 1 });
  });

  it('formats a share with its counts', () => {
    expect(formatShare({ count: 3, of: 750 })).toBe('0.4 % (3 / 750)');
    expect(formatShare({ count: 0, of: 0 })).toBe('- (0 / 0)');
  });

  it('finds the patterns that rank well but are not caught', () => {
    expect(invariantBreaks(point('a', 8, 10, 0, 10)).map((p) => p.pattern)).toEqual(['ring']);
    expect(invariantBreaks(point('a', 9, 10, 0, 10))).toEqual([]);
  });
});

describe('abuse shown by feedback on earlier steps', () => {
  const evidenced = (steps: ReturnType<typeof scheduleTraffic>, pattern: string) =>
    steps.flatMap((s) => (s.label?.pattern === pattern && s.label.evidenceAt !== undefined ? [s] : []));

  it('comes after its evidence at nominal gaps, as the patterns describe, and before it when the gaps shrink', () => {
    const nominal = scheduleTraffic(7, END);
    const fast = scheduleTraffic(7, END, { ...NOMINAL, gapScale: 1 / 24 });
    for (const pattern of ['chargeback ring', 'empty box', 'wardrobing']) {
      const atNominal = evidenced(nominal, pattern);
      expect(atNominal.length).toBeGreaterThan(0);
      expect(atNominal.filter((s) => s.at < s.label!.evidenceAt!).length / atNominal.length).toBeLessThan(
        0.1,
      );
      const shrunk = evidenced(fast, pattern);
      expect(shrunk.filter((s) => s.at < s.label!.evidenceAt!).length / shrunk.length).toBeGreaterThan(0.3);
    }
  });

  it('is sent: a chargeback or a disposition is scheduled at every evidence time before the end', () => {
    const steps = scheduleTraffic(7, END, { ...NOMINAL, gapScale: 1 / 4 });
    const feedback = new Set(steps.filter((s) => /dispute|disposition/.test(s.path)).map((s) => s.at));
    const times = steps.flatMap((s) =>
      s.label?.evidenceAt !== undefined && s.label.evidenceAt <= END ? [s.label.evidenceAt] : [],
    );
    expect(times.length).toBeGreaterThan(50);
    expect(times.every((t) => feedback.has(t))).toBe(true);
  });
});

describe('every sweep point', () => {
  it.each(SWEEP_POINTS.map((p) => [p.name, p] as const))(
    '%s sends whole-millisecond times',
    (_name, point) => {
      for (const step of scheduleTraffic(20261121, END, point.params)) {
        expect(Number.isInteger(step.at)).toBe(true);
        const timestamp = (step.body as { timestamp?: unknown }).timestamp;
        if (timestamp !== undefined) expect(String(timestamp)).toMatch(/^\d{12,13}$/);
      }
    },
  );
});
