import { describe, expect, it } from 'vitest';
import { compareModels } from '../../shared/learning/compare.ts';
import type { BacktestEvent } from '../../shared/scoring/backtest.ts';
import type { Decision } from '../../shared/scoring/decide.ts';
import type { ScoringModel } from '../../shared/scoring/model.ts';
import { DEFAULT_WORKFLOWS } from '../../shared/scoring/workflow.ts';
import { loadWorkflow } from '../../shared/scoring/workflow-engine.ts';

const orderWorkflow = await loadWorkflow(DEFAULT_WORKFLOWS.order);

const active: ScoringModel = { eventType: 'order', version: 'a', bias: -4, weights: { ring: 1 } };
const shadow: ScoringModel = { eventType: 'order', version: 's', bias: -4, weights: { ring: 8 } };

function stored(ring: number, extra: Partial<Decision> = {}): BacktestEvent {
  const decision: Decision = {
    decision: 'APPROVE',
    subDecision: 'default_approve',
    decisionType: 'APPROVE/DECLINE',
    reason: '',
    abuseScore: 0,
    modelVersion: 'a',
    workflowVersion: 'default',
    signals: { ring },
    ...extra,
  };
  return { eventId: `e${ring}`, createdAt: '2026-06-01T00:00:00.000Z', decisions: [decision] };
}

describe('compareModels', () => {
  it('re-scores stored signals with both models and counts agreement and changes', () => {
    const report = compareModels(active, shadow, orderWorkflow, [stored(0), stored(0), stored(1)]);
    expect(report).toMatchObject({
      decisions: 3,
      storedShadowDecisions: 0,
      agreeing: 2,
      agreement: 0.6667,
      changes: { 'APPROVE -> DECLINE': 1 },
    });
    expect(report.examples).toEqual([
      {
        eventId: 'e1',
        createdAt: '2026-06-01T00:00:00.000Z',
        active: 5,
        shadow: 98,
        from: 'APPROVE',
        to: 'DECLINE',
      },
    ]);
  });

  it('uses the shadow outcome stored with a live decision when it is the current shadow', () => {
    const live = stored(0, {
      shadow: { modelVersion: 's', abuseScore: 99, decision: 'DECLINE', subDecision: 'high_abuse_score' },
    });
    const report = compareModels(active, shadow, orderWorkflow, [live]);
    expect(report).toMatchObject({
      storedShadowDecisions: 1,
      agreeing: 0,
      changes: { 'APPROVE -> DECLINE': 1 },
    });
  });

  it('with no decisions agreement is 1', () => {
    expect(compareModels(active, shadow, orderWorkflow, [])).toMatchObject({
      decisions: 0,
      agreement: 1,
    });
  });
});
