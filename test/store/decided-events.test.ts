import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, type EventType } from '../../shared/contract/endpoints.ts';
import type { Decision } from '../../shared/scoring/decide.ts';
import { EVENT_FIELDS, normalizeFields } from '../../shared/scoring/variables.ts';
import { decidedEventItem, decisionsOfItem } from '../../shared/store/decided-events.ts';
import { keys } from '../../shared/store/keys.ts';

/** Every field of the type set, alternating zero and non-zero values (ages of -1: never seen). */
function fieldsOf(eventType: EventType): Record<string, string | number | boolean> {
  const given: Record<string, string | number | boolean> = {};
  EVENT_FIELDS[eventType].forEach((field, i) => {
    if (i % 2 === 1) return;
    given[field.name] =
      field.type === 'string'
        ? `v${i}`
        : field.type === 'bool'
          ? true
          : field.name.endsWith('AgeSeconds')
            ? -1
            : 123_456_789_012_345_680 + i;
  });
  return normalizeFields(eventType, given);
}

const decisionOf = (eventType: EventType): Decision => ({
  decision: 'APPROVE',
  subDecision: 'default_approve',
  decisionType: 'APPROVE/DECLINE',
  reason: 'first order from this e-mail',
  abuseScore: 6,
  modelVersion: `${eventType}-1`,
  workflowVersion: `default-${eventType}-1`,
  signals: { newCustomer: 1 },
  fields: fieldsOf(eventType),
});

const recordOf = (eventType: EventType, decision: Decision) => ({
  merchantId: 'mer_1',
  createdAt: '2026-11-23T00:00:00.000Z',
  eventAt: 1_763_856_000_000,
  ...(eventType === 'return' ? { decisions: [decision, { itemRef: 'SKU:a', decision }] } : { decision }),
});

const target = (eventType: EventType) => ({ eventType, key: keys.order('mer_1', 'o-1'), eventId: 'o-1' });

describe('decided event records', () => {
  it('keep decision fields packed, and read them back exactly as the workflow saw them', () => {
    for (const eventType of EVENT_TYPES) {
      const decision = decisionOf(eventType);
      const item = decidedEventItem(target(eventType), recordOf(eventType, decision));
      const stored = (item.decision ?? (item.decisions as unknown[])[0]) as { fields: unknown };
      expect(stored.fields).toBeInstanceOf(Uint8Array);
      expect((stored.fields as Uint8Array).length).toBeLessThan(JSON.stringify(decision.fields).length / 2);
      const read = decisionsOfItem(item);
      expect(read.length).toBe(eventType === 'return' ? 2 : 1);
      for (const d of read) expect(d).toEqual(decision);
    }
  });

  it('keeps packed fields when a record read back is written again', () => {
    const decision = decisionOf('return');
    const first = decidedEventItem(target('return'), recordOf('return', decision));
    const again = decidedEventItem(target('return'), first as unknown as ReturnType<typeof recordOf>);
    expect(decisionsOfItem(again)).toEqual([decision, decision]);
  });

  it('reads fields stored as a plain map (records written before packing), zero values restored', () => {
    const decision = decisionOf('order');
    const item = { entity: 'order', decision: { ...decision, fields: { orderValue: 10 } } };
    expect(decisionsOfItem(item)[0]?.fields).toEqual(normalizeFields('order', { orderValue: 10 }));
  });
});
