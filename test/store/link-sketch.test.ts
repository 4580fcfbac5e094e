import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  countsLinks,
  isLinked,
  LINK_MEMBERS,
  linkedCount,
  linkWrite,
  membersAttribute,
  sketchAttribute,
} from '../../shared/store/link-sketch.ts';

const digest = (text: string) => createHash('sha256').update(text).digest('base64url');

/** Applies writes as DynamoDB would: ADD to the member set, SET of the sketch. */
function linkAll(count: number, perWrite = 1): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (let i = 0; i < count; i += perWrite) {
    const digests = Array.from({ length: Math.min(perWrite, count - i) }, (_, j) => digest(`e${i + j}`));
    const { add, sketch } = linkWrite(item, 'email', digests);
    const members = (item[membersAttribute('email')] as Set<number> | undefined) ?? new Set<number>();
    for (const f of add) members.add(f);
    if (members.size > 0) item[membersAttribute('email')] = members;
    if (sketch) item[sketchAttribute('email')] = sketch;
  }
  return item;
}

describe('link sketch', () => {
  it('counts exactly up to the member cap, and knows those members', () => {
    for (const n of [0, 1, 3, LINK_MEMBERS]) {
      const item = linkAll(n);
      expect(linkedCount(item, 'email')).toBe(n);
      expect(item[sketchAttribute('email')]).toBeUndefined();
    }
    const item = linkAll(LINK_MEMBERS);
    expect(isLinked(item, 'email', digest('e0'))).toBe(true);
    expect(isLinked(item, 'email', digest('stranger'))).toBe(false);
  });

  it('estimates larger counts within 30% in fixed space, however many links and writes', () => {
    for (const [n, perWrite] of [
      [20, 1],
      [200, 3],
      [5_000, 7],
    ] as const) {
      const item = linkAll(n, perWrite);
      const estimate = linkedCount(item, 'email');
      expect(Math.abs(estimate - n) / n).toBeLessThan(0.3);
      expect((item[membersAttribute('email')] as Set<number>).size).toBe(LINK_MEMBERS);
      expect((item[sketchAttribute('email')] as Uint8Array).length).toBe(32);
    }
  });

  it('keeps membership-only links to the member cap, with no sketch', () => {
    const full = linkAll(LINK_MEMBERS);
    const more = linkWrite(full, 'email', [digest('e100'), digest('e101')], false);
    expect(more).toEqual({ add: [], sketch: undefined });
    expect(countsLinks('device', 'address')).toBe(false);
    expect(countsLinks('device', 'email')).toBe(true);
  });

  it('writes nothing for links it already holds', () => {
    const item = linkAll(LINK_MEMBERS + 40);
    const again = linkWrite(item, 'email', [digest('e0'), digest('e45')]);
    expect(again.add).toEqual([]);
    expect(again.sketch).toBeUndefined();
  });
});
