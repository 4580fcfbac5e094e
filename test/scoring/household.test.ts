import { describe, expect, it } from 'vitest';
import type { IdentityRef } from '../../shared/identity/identities.ts';
import { namedHousehold } from '../../shared/scoring/signals/household.ts';
import { fakeSnapshot } from './snapshots.ts';

const ref = (kind: IdentityRef['kind'], digest: string): IdentityRef => ({ kind, digest });
const sofia = { surname: ref('surname', 'ortega'), fullName: ref('fullName', 'sofia ortega') };
const home = fakeSnapshot('address', 'home');
const drop = fakeSnapshot('address', 'drop');
/** The family's laptop: Ana Ortega's and Luis Ortega's orders, shipped home. */
const laptop = (names: string[] = ['ana ortega', 'luis ortega']) =>
  fakeSnapshot('device', 'laptop', {
    links: { surname: ['ortega'], fullName: names, address: ['home'] },
  });
const digests = (snapshots: { ref: IdentityRef }[]) => snapshots.map((s) => `${s.ref.kind}:${s.ref.digest}`);

describe('namedHousehold: whose household an order names its customer a member of', () => {
  it('another member: the surname on the device under another whole name; the device and its home', () => {
    expect(digests(namedHousehold(sofia, [laptop()], [home], false))).toEqual([
      'device:laptop',
      'address:home',
    ]);
  });

  it('an address the device never served is not its home', () => {
    expect(digests(namedHousehold(sofia, [laptop()], [drop], false))).toEqual(['device:laptop']);
  });

  it('the same whole name on the device is the same person, under a new e-mail: no member', () => {
    expect(namedHousehold(sofia, [laptop(['ana ortega', 'sofia ortega'])], [home], false)).toEqual([]);
  });

  it('an e-mail named a member before: its own whole name on the device is its own earlier order', () => {
    expect(digests(namedHousehold(sofia, [laptop(['ana ortega', 'sofia ortega'])], [home], true))).toEqual([
      'device:laptop',
      'address:home',
    ]);
  });

  it('another surname, no surname, or no first name to tell the person: no member', () => {
    const bell = { surname: ref('surname', 'bell'), fullName: ref('fullName', 'mark bell') };
    expect(namedHousehold(bell, [laptop()], [home], false)).toEqual([]);
    expect(namedHousehold({ surname: undefined, fullName: undefined }, [laptop()], [home], false)).toEqual(
      [],
    );
    expect(
      namedHousehold({ surname: sofia.surname, fullName: undefined }, [laptop()], [home], false),
    ).toEqual([]);
  });
});
