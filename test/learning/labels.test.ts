import { describe, expect, it } from 'vitest';
import type { EventType } from '../../shared/contract/endpoints.ts';
import {
  classifyEvents,
  type DecidedEventRow,
  type FeedbackRow,
  labelEvents,
  PENDING_CHARGEBACK_WEIGHT,
} from '../../shared/learning/labels.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 1);

function event(
  eventType: EventType,
  eventId: string,
  daysAgo: number,
  identities: string[],
  parts = 1,
): DecidedEventRow {
  return {
    eventType,
    eventKey: `M#m#${eventType.toUpperCase()}#${eventId}`,
    eventId,
    at: NOW - daysAgo * DAY,
    identities,
    parts: Array.from({ length: parts }, (_, i) => ({
      signals: { s: i },
      abuseScore: 10,
      modelVersion: 'v1',
    })),
  };
}

const labels = (type: EventType, events: DecidedEventRow[], feedback: FeedbackRow[]) =>
  labelEvents(type, events, feedback, NOW).map((r) => ({
    id: r.eventKey.split('#').pop(),
    part: r.part,
    label: r.label,
    weight: r.weight,
    rule: r.rule,
  }));

describe('order labels', () => {
  const orders = ['lost', 'won', 'open', 'responded', 'quiet', 'young', 'youngLost', 'reviewed'].map((id) =>
    event('order', id, id.startsWith('young') ? 10 : 70, [`email#${id}`]),
  );
  const dispute = (orderId: string, status: 'OPEN' | 'RESPONDED' | 'WON' | 'LOST'): FeedbackRow => ({
    kind: 'dispute',
    orderId,
    status,
    at: NOW,
  });
  const rows = labels('order', orders, [
    dispute('lost', 'LOST'),
    dispute('won', 'WON'),
    dispute('open', 'OPEN'),
    dispute('responded', 'RESPONDED'),
    dispute('youngLost', 'LOST'),
    { kind: 'review', eventKey: 'M#m#ORDER#reviewed', outcome: 'legitimate', at: NOW },
  ]);

  it.each([
    ['lost', 1, 1, 'lost_chargeback'],
    ['won', 0, 1, 'no_abuse_in_window'],
    ['open', 1, PENDING_CHARGEBACK_WEIGHT, 'pending_chargeback'],
    ['responded', 1, PENDING_CHARGEBACK_WEIGHT, 'pending_chargeback'],
    ['quiet', 0, 1, 'no_abuse_in_window'],
    ['youngLost', 1, 1, 'lost_chargeback'],
    ['reviewed', 0, 1, 'review_legitimate'],
  ])('%s -> label %d weight %d (%s)', (id, label, weight, rule) => {
    expect(rows.find((r) => r.id === id)).toEqual({ id, part: 0, label, weight, rule });
  });

  it('a LOST chargeback outranks a legitimate review; an abuse review labels a young order at once', () => {
    const both = [event('order', 'contested', 70, []), event('order', 'flagged', 5, [])];
    const rows = labels('order', both, [
      dispute('contested', 'LOST'),
      { kind: 'review', eventKey: 'M#m#ORDER#contested', outcome: 'legitimate', at: NOW },
      { kind: 'review', eventKey: 'M#m#ORDER#flagged', outcome: 'abuse', at: NOW },
    ]);
    expect(rows.map((r) => [r.id, r.label, r.rule])).toEqual([
      ['contested', 1, 'lost_chargeback'],
      ['flagged', 1, 'review_abuse'],
    ]);
  });

  it('an order inside its 60-day window without a positive label is not usable yet', () => {
    expect(rows.find((r) => r.id === 'young')).toBeUndefined();
  });

  it('marks a positive inside its window provisional; a review or a closed window settles a label', () => {
    const provisional = labelEvents(
      'order',
      orders,
      [dispute('youngLost', 'LOST'), dispute('lost', 'LOST')],
      NOW,
    )
      .filter((r) => r.provisional)
      .map((r) => r.eventKey.split('#').pop());
    expect(provisional).toEqual(['youngLost']);
    const reviewed = labelEvents(
      'order',
      [event('order', 'flagged', 5, [])],
      [{ kind: 'review', eventKey: 'M#m#ORDER#flagged', outcome: 'abuse', at: NOW }],
      NOW,
    );
    expect(reviewed).toHaveLength(1);
    expect(reviewed[0]!.provisional).toBeUndefined();
  });

  it('a declined order without feedback is censored: nothing shipped, so no chargeback could come', () => {
    const declined = (id: string): DecidedEventRow => ({
      ...event('order', id, 90, []),
      parts: [{ signals: {}, abuseScore: 90, modelVersion: 'v1', decision: 'DECLINE' }],
    });
    const rows = labels('order', [declined('silent'), declined('disputed')], [dispute('disputed', 'LOST')]);
    expect(rows.map((r) => [r.id, r.label, r.rule])).toEqual([['disputed', 1, 'lost_chargeback']]);
  });

  it('lists the censored declines apart, window open or closed, for the promotion rule', () => {
    const declined = (id: string, daysAgo: number): DecidedEventRow => ({
      ...event('order', id, daysAgo, []),
      parts: [{ signals: { s: daysAgo }, abuseScore: 90, modelVersion: 'v1', decision: 'DECLINE' }],
    });
    const { labeled, censored } = classifyEvents(
      'order',
      [
        declined('old', 90),
        declined('recent', 5),
        declined('disputed', 90),
        event('order', 'approved', 90, []),
      ],
      [dispute('disputed', 'LOST')],
      NOW,
    );
    expect(censored).toEqual([
      { eventKey: 'M#m#ORDER#old', part: 0, at: NOW - 90 * DAY, signals: { s: 90 } },
      { eventKey: 'M#m#ORDER#recent', part: 0, at: NOW - 5 * DAY, signals: { s: 5 } },
    ]);
    expect(labeled.map((r) => [r.eventKey, r.rule])).toEqual([
      ['M#m#ORDER#disputed', 'lost_chargeback'],
      ['M#m#ORDER#approved', 'no_abuse_in_window'],
    ]);
  });

  it('events after training "now" are never used', () => {
    expect(
      labelEvents('order', [event('order', 'future', -1, [])], [dispute('future', 'LOST')], NOW),
    ).toEqual([]);
  });
});

describe('return labels', () => {
  const returns = [
    event('return', 'r1', 40, ['customer#a'], 3),
    event('return', 'r2', 35, ['customer#b']),
    event('return', 'r3', 34, ['customer#b']),
    event('return', 'r4', 33, ['customer#c']),
  ];
  const disposition = (
    returnId: string,
    line: number,
    condition: string,
    outcome = 'RESTOCK',
  ): FeedbackRow => ({
    kind: 'disposition',
    returnId,
    line,
    condition,
    outcome,
    at: NOW - 30 * DAY + line,
  });
  const rows = labels('return', returns, [
    disposition('r1', 0, 'EMPTY_BOX'),
    disposition('r1', 1, 'NEW', 'REMOVE_SUSPECT_ABUSE'),
    disposition('r1', 2, 'LIGHTLY_USED'),
    disposition('r2', 0, 'HEAVILY_USED'),
    {
      kind: 'disposition',
      returnId: 'r3',
      line: 0,
      condition: 'HEAVILY_USED',
      outcome: 'RESTOCK',
      at: NOW - 20 * DAY,
    },
    disposition('r4', 0, 'COUNTERFEIT_ITEM'),
  ]);

  it('labels each returned line by its own disposition', () => {
    expect(rows.filter((r) => r.id === 'r1')).toEqual([
      { id: 'r1', part: 0, label: 1, weight: 1, rule: 'abusive_disposition' },
      { id: 'r1', part: 1, label: 1, weight: 1, rule: 'abusive_disposition' },
      { id: 'r1', part: 2, label: 0, weight: 1, rule: 'no_abuse_in_window' },
    ]);
    expect(rows.find((r) => r.id === 'r4')?.rule).toBe('abusive_disposition');
  });

  it('a first HEAVILY_USED is wear; the same customer again is abuse', () => {
    expect(rows.find((r) => r.id === 'r2')?.label).toBe(0);
    expect(rows.find((r) => r.id === 'r3')).toMatchObject({ label: 1, rule: 'repeated_heavily_used' });
  });
});

describe('account event labels', () => {
  const order = event('order', 'o1', 100, ['email#x', 'card#k']);
  const ret = event('return', 'r1', 100, ['device#d']);
  const events = [
    order,
    ret,
    event('signup', 'linkedByEmail', 120, ['email#x', 'customer#1']),
    event('signup', 'linkedByCardOnly', 120, ['card#k']),
    event('signup', 'tooEarly', 200, ['email#x']),
    event('login', 'linkedByDevice', 110, ['device#d']),
    event('account', 'ato', 10, ['customer#9']),
    event('account', 'fresh', 10, ['customer#8']),
  ];
  const feedback: FeedbackRow[] = [
    { kind: 'dispute', orderId: 'o1', status: 'LOST', at: NOW - 50 * DAY },
    {
      kind: 'disposition',
      returnId: 'r1',
      line: 0,
      condition: 'EMPTY_BOX',
      outcome: 'RESTOCK',
      at: NOW - 90 * DAY,
    },
    { kind: 'review', eventKey: 'M#m#ACCOUNT#ato', outcome: 'abuse', at: NOW - 5 * DAY },
  ];

  it('signups take a LOST chargeback by the same e-mail within 90 days; a shared card alone does not count', () => {
    const rows = labels('signup', events, feedback);
    expect(rows.find((r) => r.id === 'linkedByEmail')).toMatchObject({
      label: 1,
      rule: 'linked_abuse_within_90_days',
    });
    expect(rows.find((r) => r.id === 'linkedByCardOnly')).toMatchObject({ label: 0 });
    expect(rows.find((r) => r.id === 'tooEarly')).toMatchObject({ label: 0 });
  });

  it('logins take an abusive return from the same device; a confirmed takeover labels the account update', () => {
    expect(labels('login', events, feedback)).toEqual([
      { id: 'linkedByDevice', part: 0, label: 1, weight: 1, rule: 'linked_abuse_within_90_days' },
    ]);
    // "fresh" is 10 days old without feedback: its 90-day window is still open.
    expect(labels('account', events, feedback)).toEqual([
      { id: 'ato', part: 0, label: 1, weight: 1, rule: 'review_abuse' },
    ]);
  });

  it("a takeover confirmed by review labels the device's earlier logins, not the victim's account", () => {
    const takeover = [
      event('login', 'victimEarlier', 100, ['customer#v', 'email#v', 'device#own']),
      event('login', 'attackerLogin', 100, ['customer#v', 'email#v', 'device#attacker']),
      event('account', 'payoutChange', 99, ['customer#v', 'device#attacker']),
    ];
    const confirmed: FeedbackRow[] = [
      { kind: 'review', eventKey: 'M#m#ACCOUNT#payoutChange', outcome: 'abuse', at: NOW - 95 * DAY },
    ];
    expect(labels('login', takeover, confirmed)).toEqual([
      { id: 'victimEarlier', part: 0, label: 0, weight: 1, rule: 'no_abuse_in_window' },
      { id: 'attackerLogin', part: 0, label: 1, weight: 1, rule: 'linked_abuse_within_90_days' },
    ]);
  });
});
