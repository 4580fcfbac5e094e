import { describe, expect, it } from 'vitest';
import { scriptSpeedAfterFirstSighting } from '../../shared/scoring/signals/identity-time.ts';
import { AT } from './scoring-inputs.ts';
import { fakeSnapshot } from './snapshots.ts';

/** An e-mail first seen `seconds` before the order. */
const emailSeen = (seconds: number) =>
  fakeSnapshot('email', `e-${seconds}`, { firstSeenAt: AT - seconds * 1000 });

describe('scriptSpeedAfterFirstSighting: how fast an order came after its e-mail first appeared', () => {
  it('about 1 within seconds (under one too), half at 20 s, next to nothing after a minute', () => {
    expect(scriptSpeedAfterFirstSighting([emailSeen(0.4)], AT)).toBeGreaterThan(0.999);
    expect(scriptSpeedAfterFirstSighting([emailSeen(4)], AT)).toBeCloseTo(1 / (1 + 0.2 ** 4), 12);
    expect(scriptSpeedAfterFirstSighting([emailSeen(20)], AT)).toBeCloseTo(0.5, 12);
    expect(scriptSpeedAfterFirstSighting([emailSeen(60)], AT)).toBeLessThan(0.013);
    expect(scriptSpeedAfterFirstSighting([emailSeen(600)], AT)).toBeLessThan(2e-5);
  });

  it('0 for an e-mail first seen at the order itself, or after it (a late order)', () => {
    expect(scriptSpeedAfterFirstSighting([fakeSnapshot('email', 'new')], AT)).toBe(0);
    expect(scriptSpeedAfterFirstSighting([emailSeen(0)], AT)).toBe(0);
    expect(scriptSpeedAfterFirstSighting([emailSeen(-30)], AT)).toBe(0);
  });

  it('the fastest of several e-mails', () => {
    expect(scriptSpeedAfterFirstSighting([emailSeen(3_600), emailSeen(20)], AT)).toBeCloseTo(0.5, 12);
  });

  it('moves smoothly: at most 0.25 between times 10 % apart, from 0.1 s to a day', () => {
    let previous = scriptSpeedAfterFirstSighting([emailSeen(0.1)], AT);
    for (let seconds = 0.11; seconds < 86_400; seconds *= 1.1) {
      const speed = scriptSpeedAfterFirstSighting([emailSeen(seconds)], AT);
      expect(Math.abs(speed - previous), `at ${seconds.toFixed(1)} s`).toBeLessThanOrEqual(0.25);
      previous = speed;
    }
  });
});
