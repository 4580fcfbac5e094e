import { describe, expect, it } from 'vitest';
import { isFraudReason, isLostFraudDispute } from '../../shared/lists/feedback-rules.ts';
import { backtest } from '../../shared/scoring/backtest.ts';
import type { Decision } from '../../shared/scoring/decide.ts';
import type { ListMarker } from '../../shared/scoring/list-marker.ts';
import { applyLists, listReason, listVerdict } from '../../shared/scoring/lists.ts';
import { DEFAULT_WORKFLOWS } from '../../shared/scoring/workflow.ts';
import { loadWorkflow } from '../../shared/scoring/workflow-engine.ts';
import {
  encodeMarker,
  fitMarkers,
  MARKERS_ATTRIBUTE,
  MAX_MARKER_BYTES,
  MAX_MARKERS,
  markerRef,
  markersOf,
} from '../../shared/store/list-markers.ts';
import { fakeSnapshot, listMarker } from './snapshots.ts';

const T = Date.UTC(2026, 10, 12, 9, 30, 15);
const HOUR_MS = 3_600_000;

const marker = (overrides: Partial<ListMarker> = {}) => listMarker({ since: T, ...overrides });

describe('list markers on identity items (shared/store/list-markers.ts)', () => {
  it('encode and decode every field, times in whole seconds (acting from the start of the second)', () => {
    const cases: ListMarker[] = [
      marker(),
      marker({ list: 'watch', expiresAt: T + 24 * HOUR_MS, eventTypes: ['order', 'account'] }),
      marker({ list: 'allow', note: { cause: 'reason', ref: 'VIP since 2019' } }),
      marker({ since: Date.UTC(2000, 0, 1), note: { cause: 'review', ref: 'return r-1' } }),
    ];
    for (const original of cases) {
      const [decoded] = markersOf({
        [MARKERS_ATTRIBUTE]: encodeMarker({ ...original, since: original.since + 999 }),
      });
      expect(decoded).toEqual(original);
    }
    expect(markersOf({ [MARKERS_ATTRIBUTE]: cases.map(encodeMarker).join(';') })).toEqual(cases);
    // A chargeback's block for all types: 23 bytes, so two fit an item.
    expect(encodeMarker(marker())).toHaveLength(23);
  });

  it("carries a watch's kept events at its entry in one more byte, 35 at most; older markers read none", () => {
    const watch = marker({ list: 'watch', keptAtEntry: 6 });
    const encoded = encodeMarker(watch);
    expect(encoded).toHaveLength(encodeMarker(marker({ list: 'watch' })).length + 1);
    expect(markersOf({ [MARKERS_ATTRIBUTE]: encoded })).toEqual([watch]);
    expect(markersOf({ [MARKERS_ATTRIBUTE]: encodeMarker({ ...watch, keptAtEntry: 500 }) })[0]).toEqual({
      ...watch,
      keptAtEntry: 35,
    });
    // The same marker as stored before the count was kept: its cause a decimal digit, no count.
    const older = encodeMarker(marker({ list: 'watch' }));
    expect(older.charAt(older.length - 'o-123'.length - 1)).toBe('0');
    expect(markersOf({ [MARKERS_ATTRIBUTE]: older })[0]?.keptAtEntry).toBeUndefined();
  });

  it('keeps a marker ref short and free of separators', () => {
    expect(markerRef('o-1;2\n3')).toBe('o-1 2 3');
    expect(markerRef('a very long order id 1234')).toBe('a very long ord…');
    expect(markersOf({ [MARKERS_ATTRIBUTE]: 'garbage;also|bad' })).toEqual([]);
    expect(markersOf(undefined)).toEqual([]);
  });

  it('fits block over allow over watch, newest first, within the count and the bytes; expired ones go', () => {
    // 18 bytes each: with the 23-byte block, three fit MAX_MARKER_BYTES.
    const watch = (id: string, hoursAgo: number) =>
      marker({
        id: id.padEnd(9, '0'),
        list: 'watch',
        since: T - hoursAgo * HOUR_MS,
        note: { cause: 'review', ref: '' },
      });
    const stored = [watch('w1', 5), watch('w2', 4), marker({ id: 'expired00', expiresAt: T - HOUR_MS })];
    const adding = [watch('w3', 1), marker({ id: 'block0000', since: T - 10 * HOUR_MS })];
    const { kept, displaced } = fitMarkers(stored, adding, new Set(), T);
    expect(kept.map((m) => m.id)).toEqual(['block0000', 'w30000000', 'w20000000']);
    expect(displaced.map((m) => m.id)).toEqual(['w10000000']);
    expect(kept.map(encodeMarker).join(';').length).toBeLessThanOrEqual(MAX_MARKER_BYTES);
    // A removal frees the room.
    expect(fitMarkers(kept, [], new Set(['w30000000']), T).kept.map((m) => m.id)).toEqual([
      'block0000',
      'w20000000',
    ]);
    // However small, never more than MAX_MARKERS.
    const tiny = Array.from({ length: 8 }, (_, i) =>
      marker({ id: `t${i}`.padEnd(9, '0'), list: 'watch', note: { cause: 'reason', ref: '' } }),
    );
    expect(fitMarkers([], tiny, new Set(), T).kept).toHaveLength(MAX_MARKERS);
  });
});

describe('the lists on a decision (shared/scoring/lists.ts)', () => {
  it('blocks with the newest active entry for the event type; allows only the customer; watches each identity once', () => {
    const card = fakeSnapshot('card', 'c1', {
      lists: [
        marker({ eventTypes: ['order'] }),
        marker({ id: 'newerbloc', since: T + 60_000, eventTypes: ['order'] }),
      ],
    });
    const device = fakeSnapshot('device', 'd1', {
      lists: [marker({ list: 'watch', since: T - HOUR_MS }), marker({ list: 'watch', id: 'later0000' })],
    });
    const email = fakeSnapshot('email', 'e1', {
      lists: [marker({ list: 'allow', note: { cause: 'reason', ref: 'VIP' } })],
    });
    const onOrder = listVerdict('order', [email, card, device], [email]);
    expect(onOrder.blocked?.marker.id).toBe('newerbloc');
    expect(onOrder.allowed?.kind).toBe('email');
    expect(onOrder.watched.map((w) => [w.kind, w.marker.since])).toEqual([['device', T - HOUR_MS]]);
    // The card's block is for orders only; an allow entry on a non-customer identity is not the customer's.
    const onReturn = listVerdict('return', [email, card, device], []);
    expect(onReturn.blocked).toBeUndefined();
    expect(onReturn.allowed).toBeUndefined();
    expect(listReason(onOrder, 'block')).toBe(
      'card blocked: lost fraud chargeback on order o-123 on 12 Nov 2026',
    );
    expect(listReason(onOrder, 'allow')).toBe('e-mail on the allow list: VIP');
  });

  const decline = { decision: 'DECLINE', name: 'high_abuse_score' } as const;
  const approve = { decision: 'APPROVE', name: 'default_approve' } as const;
  const review = { decision: 'REVIEW', name: 'elevated_abuse_score' } as const;
  it.each([
    ['order', decline, true, false, true, 'DECLINE', 'block_list'],
    ['order', approve, true, true, true, 'DECLINE', 'block_list'],
    ['return', approve, true, false, true, 'REVIEW', 'block_list'],
    ['return', decline, true, false, true, 'DECLINE', 'block_list'],
    ['return', approve, true, false, false, 'DECLINE', 'block_list'],
    ['order', decline, false, true, false, 'APPROVE', 'allow_list'],
    ['return', review, false, true, true, 'REVIEW', 'elevated_abuse_score'],
    ['order', approve, false, true, false, 'APPROVE', 'default_approve'],
    ['order', decline, false, false, false, 'DECLINE', 'high_abuse_score'],
  ] as const)(
    '%s %o blocked=%s allowed=%s canReview=%s -> %s %s',
    (type, branch, onBlockList, onAllowList, canReview, decision, name) => {
      expect(applyLists(branch, type, canReview, { onBlockList, onAllowList })).toMatchObject({
        decision,
        name,
      });
    },
  );

  it('are applied again by a backtest from the fields a decision kept', async () => {
    const stored = (onBlockList: boolean, onAllowList: boolean): Decision => ({
      decision: 'APPROVE',
      subDecision: 'x',
      decisionType: 'APPROVE/DECLINE',
      reason: '',
      abuseScore: 10,
      modelVersion: 'm',
      workflowVersion: 'w',
      signals: {},
      fields: { onBlockList, onAllowList },
    });
    const candidate = await loadWorkflow({
      ...DEFAULT_WORKFLOWS.order,
      rules: [{ name: 'decline_all', decision: 'DECLINE', condition: 'abuseScore >= 0' }],
      version: 'cand',
    });
    const report = backtest(candidate, [
      { eventId: 'a', createdAt: '', decisions: [stored(true, false)] },
      { eventId: 'b', createdAt: '', decisions: [stored(false, true)] },
      { eventId: 'c', createdAt: '', decisions: [stored(false, false)] },
    ]);
    expect(report.branchTransitions).toEqual({
      'APPROVE (x) -> DECLINE (block_list)': 1,
      'APPROVE (x) -> APPROVE (allow_list)': 1,
      'APPROVE (x) -> DECLINE (decline_all)': 1,
    });
  });
});

describe('fraud dispute reasons (shared/lists/feedback-rules.ts)', () => {
  it.each([
    ['FRAUD', true],
    ['fraudulent', true],
    [' unauth ', true],
    ['UNAUTHORIZED', true],
    ['10.4', true],
    ['10.1', true],
    ['4837', true],
    ['4863', true],
    ['F29', true],
    ['UA02', true],
    ['13.1', false],
    ['INR', false],
    ['DUPLICATE', false],
    ['4853', false],
  ])('%s -> %s', (reason, fraud) => {
    expect(isFraudReason(reason)).toBe(fraud);
  });

  it('needs a LOST chargeback or arbitration: an inquiry or an open dispute puts nothing on the lists', () => {
    const dispute = { disputeType: 'CHARGEBACK', disputeStatus: 'LOST', disputeReason: 'FRAUD' };
    expect(isLostFraudDispute(dispute)).toBe(true);
    expect(isLostFraudDispute({ ...dispute, disputeType: 'ARBITRATION' })).toBe(true);
    expect(isLostFraudDispute({ ...dispute, disputeType: 'INQUIRY' })).toBe(false);
    expect(isLostFraudDispute({ ...dispute, disputeStatus: 'OPEN' })).toBe(false);
  });
});
