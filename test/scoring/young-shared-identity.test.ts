import { describe, expect, it } from 'vitest';
import type { IdentityRef } from '../../shared/identity/identities.ts';
import {
  freshAccountsSignal,
  SIGNUP_ACCOUNT_PACE_SECONDS,
  youngSharedIdentity,
} from '../../shared/scoring/signals/young-shared-identity.ts';
import { fakeSnapshot } from './snapshots.ts';

const AT = Date.UTC(2026, 5, 15, 12);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const own: IdentityRef[] = [{ kind: 'customer', digest: 'me' }];
const device = (firstSeenAt: number | undefined, accounts: string[]) =>
  fakeSnapshot('device', 'd1', { firstSeenAt, links: { customer: accounts } });

/** Signups: other accounts on a device or phone, at most one per 2 days of its life. */
const atSignup = (...holders: ReturnType<typeof device>[]) =>
  youngSharedIdentity(holders, 'customer', own, AT, SIGNUP_ACCOUNT_PACE_SECONDS);

describe('youngSharedIdentity', () => {
  it("a farm's second account 30 hours after the first on a new device", () => {
    // 30 hours against a pace of 2 days for one other: 1 / (1 + (30 / 48)^4).
    expect(atSignup(device(AT - 30 * HOUR, ['a1']))).toEqual({
      others: 1,
      kind: 'device',
      ageSeconds: 108_000,
      value: 1 / (1 + (30 / 48) ** 4),
    });
  });

  it('counts the accounts the pace allows: 3 others on a device 5 days old (3 x 2 days)', () => {
    expect(atSignup(device(AT - 5 * DAY, ['a1', 'a2', 'a3']))?.others).toBe(3);
  });

  it("leaves the event's own account out", () => {
    expect(atSignup(device(AT - HOUR, ['me']))).toBeUndefined();
    expect(atSignup(device(AT - HOUR, ['me', 'a1']))?.others).toBe(1);
  });

  it('a household device gathering members over months does not fire', () => {
    expect(atSignup(device(AT - 90 * DAY, ['a1', 'a2', 'a3', 'a4']))).toBeUndefined();
  });

  it('one other account on a device 3 days old is slower than the pace: it fades, never switches off', () => {
    const at = (days: number) => atSignup(device(AT - days * DAY, ['a1']))?.value ?? 0;
    expect(at(2)).toBeCloseTo(0.5);
    expect(at(3)).toBeCloseTo(1 / (1 + 1.5 ** 4));
    expect(at(3)).toBeLessThan(at(2.9));
    expect(at(8)).toBe(0);
  });

  it('a device seen for the first time now has nobody else on it', () => {
    expect(atSignup(device(undefined, []))).toBeUndefined();
  });

  it('the identity with the most others wins', () => {
    const phone = fakeSnapshot('phone', 'p1', { firstSeenAt: AT - DAY, links: { customer: ['a1', 'a2'] } });
    expect(atSignup(device(AT - DAY, ['a1']), phone)).toEqual({
      others: 2,
      kind: 'phone',
      ageSeconds: 86_400,
      value: Math.log2(3) / (1 + (1 / 4) ** 4),
    });
  });
});

describe('freshAccountsSignal', () => {
  it("the finding's value times the event's weight, with the age and count in words", () => {
    const found = { others: 3, kind: 'device', ageSeconds: 2 * 86_400, value: 2 } as const;
    expect(freshAccountsSignal(found, 'customer', 0.5)).toEqual({
      value: 1,
      evidence: 'device first seen 2 days ago, already used with 3 other accounts',
    });
    expect(
      freshAccountsSignal({ others: 1, kind: 'card', ageSeconds: 7_200, value: 1 }, 'email')?.evidence,
    ).toBe('card first seen 2 hours ago, already used with 1 other e-mail');
  });

  it('nothing found, nothing fired', () => {
    expect(freshAccountsSignal(undefined, 'customer')).toBeUndefined();
  });
});
