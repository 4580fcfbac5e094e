import { describe, expect, it } from 'vitest';
import type { DisputeEvent, StoredDispute } from '../../shared/store/disputes.ts';
import { applyDisputeEvents, effectsOf } from '../../shared/use-cases/dispute-state.ts';

/** The dispute state rules of docs/decisions.md, without the store. */
const T = Date.UTC(2026, 0, 1);
const IDENTITIES = ['email#e1', 'card#c1'];
const FRESH = {
  merchantId: 'mer_1',
  disputeId: 'dp_1',
  providerOrderId: 'order-1',
  serviceOrderId: 'ord_1',
  currencyCode: '840',
  createdAt: new Date(T).toISOString(),
};

const event = (disputeStatus: string, timestamp: number, disputeAmount = 40): DisputeEvent => ({
  disputeType: 'CHARGEBACK',
  disputeReason: 'FRAUD',
  disputeStatus: disputeStatus as DisputeEvent['disputeStatus'],
  disputeAmount,
  timestamp,
});

const apply = (stored: StoredDispute | undefined, ...events: DisputeEvent[]) =>
  applyDisputeEvents(stored, events, FRESH, IDENTITIES, T);

describe('applyDisputeEvents', () => {
  it('accepts any status first (back-fill) and records its effect', () => {
    const lost = apply(undefined, event('LOST', T));
    expect(lost?.current.disputeStatus).toBe('LOST');
    expect(lost?.applied).toEqual({ identities: IDENTITIES, lost: { value: 40, at: T } });
    expect(lost?.version).toBe(1);
  });

  it('lets the latest timestamp win whatever the order of arrival', () => {
    const stored = apply(undefined, event('WON', T + 2), event('OPEN', T), event('RESPONDED', T + 1));
    expect(stored?.current.disputeStatus).toBe('WON');
    expect(stored?.history.map((e) => e.disputeStatus)).toEqual(['OPEN', 'RESPONDED', 'WON']);
    expect(stored?.applied).toEqual({ identities: IDENTITIES });
  });

  it('keeps an older event in the history without changing the state', () => {
    const lost = apply(undefined, event('LOST', T))!;
    const late = apply(lost, event('OPEN', T - 1))!;
    expect(late.current.disputeStatus).toBe('LOST');
    expect(late.applied).toEqual(lost.applied);
    expect(late.history).toHaveLength(2);
  });

  it('changes nothing for an event already received', () => {
    const lost = apply(undefined, event('LOST', T))!;
    expect(apply(lost, event('LOST', T))).toBeUndefined();
  });

  it('keeps an open dispute’s original time from OPEN to RESPONDED', () => {
    const open = apply(undefined, event('OPEN', T))!;
    const responded = apply(open, event('RESPONDED', T + 5))!;
    expect(responded.applied.open).toEqual({ at: T });
  });
});

describe('effectsOf', () => {
  it.each<[string, DisputeEvent, object]>([
    ['OPEN counts as open', event('OPEN', T), { open: { at: T } }],
    ['RESPONDED counts as open', event('RESPONDED', T), { open: { at: T } }],
    ['LOST is a lost chargeback of its amount', event('LOST', T, 12.5), { lost: { value: 12.5, at: T } }],
    ['WON adds nothing', event('WON', T), {}],
  ])('%s', (_, current, expected) => {
    expect(effectsOf(current, undefined, IDENTITIES)).toEqual({ identities: IDENTITIES, ...expected });
  });

  it('a new LOST amount replaces the old one at the new time', () => {
    const before = { identities: IDENTITIES, lost: { value: 40, at: T } };
    expect(effectsOf(event('LOST', T + 1, 40), before, []).lost).toBe(before.lost);
    expect(effectsOf(event('LOST', T + 1, 45), before, []).lost).toEqual({ value: 45, at: T + 1 });
  });
});
