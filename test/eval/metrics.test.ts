import { describe, expect, it } from 'vitest';
import {
  falseDeclineRate,
  precisionRecall,
  reportByPattern,
  rocAuc,
  type ScoredEvent,
} from '../../eval/metrics.ts';

const event = (
  pattern: string,
  label: 0 | 1,
  abuseScore: number,
  decision = 'APPROVE',
  eventType = 'order',
): ScoredEvent => ({
  pattern,
  label,
  eventType,
  abuseScore,
  decision,
});

describe('evaluation measures', () => {
  it.each([
    [[90, 80], [10, 20], 1],
    [[10, 20], [90, 80], 0],
    [[50], [50], 0.5],
    [[60, 40], [50], 0.5],
    [[70, 30, 90], [50, 20], (2 + 1 + 2) / 6],
  ])('rocAuc(%j, %j) = %d', (positives, negatives, expected) => {
    expect(rocAuc(positives, negatives)).toBeCloseTo(expected, 10);
  });

  it('is undefined without positives or negatives', () => {
    expect(rocAuc([], [1])).toBeNaN();
    expect(rocAuc([1], [])).toBeNaN();
  });

  it('counts anything but APPROVE as flagged for precision and recall', () => {
    const events = [
      event('p', 1, 90, 'DECLINE'),
      event('p', 1, 60, 'REVIEW'),
      event('p', 1, 20, 'APPROVE'),
      event('good', 0, 70, 'DECLINE'),
      event('good', 0, 5, 'APPROVE'),
    ];
    expect(precisionRecall(events)).toEqual({ precision: 2 / 3, recall: 2 / 3 });
  });

  it('compares each pattern with the good events of its own event types', () => {
    const events = [
      event('ring', 1, 90, 'DECLINE', 'order'),
      event('stuffing', 1, 80, 'DECLINE', 'login'),
      event('good', 0, 10, 'APPROVE', 'order'),
      event('good', 0, 95, 'DECLINE', 'login'),
    ];
    const [ring, stuffing] = reportByPattern(events, 'good');
    expect(ring).toMatchObject({ pattern: 'ring', eventTypes: 'order', positives: 1, negatives: 1, auc: 1 });
    expect(stuffing).toMatchObject({
      pattern: 'stuffing',
      eventTypes: 'login',
      positives: 1,
      negatives: 1,
      auc: 0,
    });
    expect(falseDeclineRate(events)).toBe(0.5);
  });
});
