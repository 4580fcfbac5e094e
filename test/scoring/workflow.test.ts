import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, type EventType } from '../../shared/contract/endpoints.ts';
import type { DecisionOutcome } from '../../shared/schemas/decision.ts';
import { backtest } from '../../shared/scoring/backtest.ts';
import { compileCondition } from '../../shared/scoring/cel-compiler.ts';
import type { Decision } from '../../shared/scoring/decide.ts';
import { modelFor } from '../../shared/scoring/models.ts';
import { documentedVariables } from '../../shared/scoring/variable-meanings.ts';
import {
  celActivation,
  normalizeFields,
  orderFields,
  workflowVariables,
} from '../../shared/scoring/variables.ts';
import { DEFAULT_WORKFLOWS, decisionTypeOf, type Workflow } from '../../shared/scoring/workflow.ts';
import { loadWorkflow, matchWorkflow } from '../../shared/scoring/workflow-engine.ts';
import { validateWorkflow } from '../../shared/scoring/workflow-validation.ts';

const rule = (name: string, condition: string, decision: DecisionOutcome = 'DECLINE') => ({
  name,
  condition,
  decision,
});
const doc = (rules: unknown[], defaultBranch = { name: 'default_approve', decision: 'APPROVE' }) => ({
  rules,
  defaultBranch,
});

describe('validateWorkflow: accepted', () => {
  it.each<[string, EventType, unknown]>([
    ['a catch-all threshold before the default', 'order', doc([rule('deny_all', 'abuseScore >= 0')])],
    [
      'signals, fields and boolean logic',
      'order',
      doc([
        rule('chargeback_history', 'lostChargebacksOnIdentities >= 1.0 && orderValue > 200.0'),
        rule('big_gift_card', 'giftCardUsed > 0 && (orderValue >= 500.0 || unitCount > 10)'),
        rule('pending_risky', 'orderState == "PENDING" && abuseScore >= 60'),
      ]),
    ],
    [
      'ints compared with doubles',
      'order',
      doc([rule('a', 'abuseScore > 80.5'), rule('b', 'cvvMismatch >= 1')]),
    ],
    [
      'a narrower rule before a wider one',
      'order',
      doc([rule('a', 'abuseScore >= 90'), rule('b', 'abuseScore >= 70')]),
    ],
    ['REVIEW on returns', 'return', doc([rule('store_credit', 'refundMode == "STORE_CREDIT"', 'REVIEW')])],
    ['REVIEW added to signups', 'signup', doc([rule('maybe', 'abuseScore >= 40', 'REVIEW')])],
    ['a login field', 'login', doc([rule('failed_burst', 'loginStatus == "$failure" && abuseScore >= 50')])],
    ['an account field', 'account', doc([rule('payout', 'changeType == "PAYOUT_CHANGE"', 'REVIEW')])],
    ['no rules at all', 'order', doc([])],
  ])('%s', (_label, eventType, document) => {
    const result = validateWorkflow(eventType, document, 'wf_test');
    expect(result.valid ? [] : result.errors).toEqual([]);
  });

  it('every default workflow is valid, and its decisionType is the documented one', () => {
    const expected: Record<EventType, string> = {
      order: 'APPROVE/DECLINE',
      return: 'APPROVE/DECLINE/REVIEW',
      signup: 'APPROVE/DECLINE',
      login: 'APPROVE/DECLINE',
      account: 'APPROVE/DECLINE/REVIEW',
    };
    for (const eventType of EVENT_TYPES) {
      const workflow = DEFAULT_WORKFLOWS[eventType];
      const result = validateWorkflow(eventType, workflow, workflow.version);
      expect(result.valid ? result.workflow : result.errors).toEqual(workflow);
      expect(decisionTypeOf(workflow)).toBe(expected[eventType]);
    }
  });
});

describe('validateWorkflow: refused, with a message naming the rule', () => {
  it.each<[string, EventType, unknown, string]>([
    [
      'unknown variable',
      'order',
      doc([rule('ok', 'abuseScore >= 90'), rule('typo', 'abuseScor >= 80')]),
      'rule "typo" (#2): unknown variable "abuseScor" at column 1 in condition; `workflows variables --type order` lists the variables',
    ],
    [
      'a field of another event type',
      'order',
      doc([rule('credit', 'refundMode == "STORE_CREDIT"')]),
      'rule "credit" (#1): unknown variable "refundMode" at column 1',
    ],
    [
      'type error: int compared with a string',
      'order',
      doc([rule('high', 'abuseScore == "high"')]),
      'rule "high" (#1): type error in condition at column 1: no such overload: int == string',
    ],
    [
      'not a bool',
      'order',
      doc([rule('sum', 'abuseScore + 1')]),
      'rule "sum" (#1): type error in condition: the condition is of type int, it must be a bool',
    ],
    [
      'syntax error',
      'order',
      doc([rule('cut', 'abuseScore >= ')]),
      'rule "cut" (#1): syntax error in condition at column 14',
    ],
    [
      'orders never REVIEW',
      'order',
      doc([rule('hold', 'abuseScore >= 60', 'REVIEW')]),
      'rule "hold" (#1): decision REVIEW is not possible for order workflows (orders never REVIEW); allowed: APPROVE, DECLINE',
    ],
    [
      'orders never REVIEW, default branch too',
      'order',
      doc([], { name: 'hold_all', decision: 'REVIEW' }),
      'default branch "hold_all": decision REVIEW is not possible for order workflows',
    ],
    [
      'a rule after one that always holds',
      'order',
      doc([rule('everything', 'true'), rule('high', 'abuseScore >= 85')]),
      'rule "high" (#2) is unreachable: rule "everything" (#1) before it always holds',
    ],
    [
      'a duplicate condition (spacing and parentheses do not matter)',
      'return',
      doc([rule('a', 'abuseScore >= 85'), rule('b', '(abuseScore>=85)', 'REVIEW')]),
      'rule "b" (#2) is unreachable: it has the same condition as rule "a" (#1)',
    ],
    [
      'a threshold inside an earlier one (ints: > 84 is >= 85)',
      'order',
      doc([rule('a', 'abuseScore > 84'), rule('b', 'abuseScore >= 90 && giftCardUsed > 0')]),
      'rule "b" (#2) is unreachable: every event matching `abuseScore >= 90 && giftCardUsed > 0` already matches rule "a" (#1) `abuseScore > 84`',
    ],
    [
      'a case of an earlier disjunction',
      'return',
      doc([
        rule('a', 'refundMode == "STORE_CREDIT" || abuseScore >= 90'),
        rule('b', 'refundMode == "STORE_CREDIT" && itemQuantity > 2', 'REVIEW'),
      ]),
      'rule "b" (#2) is unreachable: every event matching',
    ],
    [
      'a contradictory condition',
      'order',
      doc([rule('never', 'abuseScore > 90 && abuseScore < 10')]),
      'rule "never" (#1) is unreachable: its condition can never hold',
    ],
    [
      'a constant false',
      'order',
      doc([rule('never', '1 == 2')]),
      'rule "never" (#1) is unreachable: its condition can never hold',
    ],
    [
      'a last rule that always holds hides the default branch',
      'order',
      doc([rule('high', 'abuseScore >= 85'), rule('rest', 'true', 'APPROVE')]),
      'default branch "default_approve" is unreachable: rule "rest" (#2) always holds',
    ],
    [
      'duplicate names',
      'order',
      doc([rule('x', 'abuseScore >= 90'), rule('x', 'abuseScore >= 80')]),
      'rule "x" (#2): name already used by rule #1',
    ],
    [
      'a misspelt key',
      'order',
      doc([{ name: 'x', conditon: 'true', decision: 'DECLINE' }]),
      'rule "x" (#1): Unrecognized key: "conditon"',
    ],
    [
      'an unknown outcome',
      'order',
      doc([rule('x', 'true', 'BLOCK' as DecisionOutcome)]),
      'rule "x" (#1) decision: Invalid option',
    ],
    [
      'the wrong event type',
      'order',
      { eventType: 'return', ...doc([]) },
      'eventType "return" does not match --type order',
    ],
    ['no default branch', 'order', { rules: [] }, 'defaultBranch: Invalid input'],
  ])('%s', (_label, eventType, document, message) => {
    const result = validateWorkflow(eventType, document, 'wf_test');
    expect(result.valid).toBe(false);
    if (!result.valid) expect(result.errors.join('\n')).toContain(message);
  });
});

describe('validateWorkflow: reachability is sound', () => {
  it('a rule that never holds hides nothing after it', () => {
    const result = validateWorkflow(
      'order',
      doc([rule('a', 'abuseScore > 1 && false'), rule('b', 'abuseScore > 2')]),
      'wf_test',
    );
    expect(result.valid ? [] : result.errors).toEqual([
      'rule "a" (#1) is unreachable: its condition can never hold',
    ]);
  });

  it.each([
    ['overlapping but not contained', 'abuseScore >= 50 && abuseScore < 80', 'abuseScore >= 70'],
    ['another variable', 'abuseScore >= 50', 'orderValue >= 50.0'],
    ['a wider disjunction', 'abuseScore >= 90', 'abuseScore >= 95 || giftCardUsed > 0'],
    ['a different string', 'orderState == "PENDING"', 'orderState == "AUTHORIZED"'],
    ['open vs closed double bound', 'orderValue > 100.0', 'orderValue >= 100.0'],
  ])('%s stays reachable', (_label, first, second) => {
    const result = validateWorkflow('order', doc([rule('a', first), rule('b', second)]), 'wf_test');
    expect(result.valid ? [] : result.errors).toEqual([]);
  });
});

const workflow = (rules: Workflow['rules'], eventType: EventType = 'order'): Workflow => ({
  eventType,
  version: 'wf_t',
  rules,
  defaultBranch: { name: 'default_approve', decision: 'APPROVE' },
});

describe('matchWorkflow: the first rule that holds decides', () => {
  const rules = [
    rule('very_high', 'abuseScore >= 90'),
    rule('chargebacks_big_order', 'lostChargebacksOnIdentities >= 1.0 && orderValue >= 500.0'),
    rule('many_units', 'unitCount > 20 && orderState != "PAID"'),
  ];
  it.each<[string, number, Record<string, number>, Record<string, string | number | boolean>, string]>([
    ['nothing holds', 10, {}, {}, 'default_approve'],
    ['the score rule', 95, { lostChargebacksOnIdentities: 1 }, { orderValue: 900 }, 'very_high'],
    [
      'a signal and a field',
      40,
      { lostChargebacksOnIdentities: 1 },
      { orderValue: 500 },
      'chargebacks_big_order',
    ],
    ['a signal that did not fire reads 0', 40, {}, { orderValue: 900 }, 'default_approve'],
    ['strings and ints', 40, {}, { unitCount: 21, orderState: 'PENDING' }, 'many_units'],
    ['a missing field reads as its zero value', 40, {}, { unitCount: 21 }, 'many_units'],
    [
      'ints from doubles are truncated',
      40,
      {},
      { unitCount: 20.9, orderState: 'PENDING' },
      'default_approve',
    ],
  ])('%s', async (_label, abuseScore, signals, fields, expected) => {
    const match = matchWorkflow(await loadWorkflow(workflow(rules)), { abuseScore, signals, fields });
    expect(match.name).toBe(expected);
    expect(match.errors).toEqual([]);
  });

  it('conditions compile once and are cached by text', () => {
    const first = compileCondition('order', 'abuseScore >= 42', workflowVariables('order'));
    expect(compileCondition('order', 'abuseScore >= 42', workflowVariables('order'))).toBe(first);
    expect(compileCondition('return', 'abuseScore >= 42', workflowVariables('return'))).not.toBe(first);
  });
});

describe('variable catalog', () => {
  it('takes the identity-time variables in conditions of every scored event type', () => {
    const rules = [
      {
        name: 'bot_speed',
        decision: 'DECLINE',
        condition: 'emailAgeSeconds >= 0 && emailAgeSeconds < 30 && distinctEmailsOnDevice1h >= 3',
      },
    ];
    for (const eventType of ['order', 'return', 'signup', 'login', 'account'] as const) {
      const result = validateWorkflow(
        eventType,
        { rules, defaultBranch: { name: 'ok', decision: 'APPROVE' } },
        'wf',
      );
      expect(result.valid, eventType).toBe(true);
    }
    expect(
      validateWorkflow(
        'return',
        {
          rules: [{ name: 'typo', decision: 'DECLINE', condition: 'emailAgeSecond < 30' }],
          defaultBranch: { name: 'ok', decision: 'APPROVE' },
        },
        'wf',
      ).valid,
    ).toBe(false);
  });

  it('has the score, every model signal as a double and the fields, with no name twice', () => {
    const catalog = workflowVariables('order');
    expect(catalog[0]).toMatchObject({ name: 'abuseScore', type: 'int', source: 'score' });
    const signals = catalog.filter((v) => v.source === 'signal');
    expect(signals.map((v) => v.name).sort()).toEqual(Object.keys(modelFor('order').weights).sort());
    expect(signals.every((v) => v.type === 'double')).toBe(true);
    expect(catalog.filter((v) => v.source === 'field').map((v) => [v.name, v.type])).toEqual([
      ['orderValue', 'double'],
      ['currencyCode', 'string'],
      ['lineItemCount', 'int'],
      ['unitCount', 'int'],
      ['orderState', 'string'],
      ['hasDeviceFingerprint', 'bool'],
      ['emailAgeSeconds', 'int'],
      ['accountAgeSeconds', 'int'],
      ['deviceAgeSeconds', 'int'],
      ['cardAgeSeconds', 'int'],
      ['addressAgeSeconds', 'int'],
      ['secondsSincePreviousEvent', 'int'],
      ...['EmailsOnDevice', 'AccountsOnDevice', 'CardsOnDevice', 'EmailsOnCard', 'AccountsOnAddress'].flatMap(
        (pair) => ['15m', '1h', '24h'].map((window) => [`distinct${pair}${window}`, 'int']),
      ),
      ['onBlockList', 'bool'],
      ['onAllowList', 'bool'],
      ['watchListedIdentities', 'int'],
    ]);
    for (const eventType of EVENT_TYPES) {
      const names = workflowVariables(eventType).map((v) => v.name);
      expect(new Set(names).size).toBe(names.length);
      // A signal named like the score or a field would be dropped from the catalog: rename it instead.
      const signalNames = workflowVariables(eventType)
        .filter((v) => v.source === 'signal')
        .map((v) => v.name);
      expect(signalNames.sort(), eventType).toEqual(Object.keys(modelFor(eventType).weights).sort());
    }
  });

  it('words every variable of every event type (variable-meanings.ts), the catalog unchanged', () => {
    for (const eventType of EVENT_TYPES) {
      const documented = documentedVariables(eventType);
      expect(
        documented.map(({ name, type, source }) => ({ name, type, source })),
        eventType,
      ).toEqual(workflowVariables(eventType));
      for (const variable of documented) expect(variable.meaning.length, variable.name).toBeGreaterThan(10);
    }
  });

  it('the CEL activation types ints as BigInt and fills what is missing', () => {
    const activation = celActivation(
      'order',
      42,
      { cvvMismatch: 1 },
      normalizeFields('order', { unitCount: 3 }),
      { declineAt: 80, reviewAt: 60 },
    );
    expect(activation).toMatchObject({
      abuseScore: 42n,
      modelDeclineAt: 80n,
      modelReviewAt: 60n,
      cvvMismatch: 1,
      giftCardUsed: 0,
      unitCount: 3n,
      lineItemCount: 0n,
      orderState: '',
      hasDeviceFingerprint: false,
    });
  });

  it('orderFields reads the order request', () => {
    expect(
      orderFields({
        totalPrice: { amount: '120.50', currencyCode: '978' },
        state: 'PENDING',
        lineItems: [{ quantity: '2' }, { quantity: '3' }],
        deviceFingerprints: [{}],
      }),
    ).toEqual({
      orderValue: 120.5,
      currencyCode: '978',
      lineItemCount: 2,
      unitCount: 5,
      orderState: 'PENDING',
      hasDeviceFingerprint: true,
    });
  });
});

describe('backtest (pure)', () => {
  const stored = (
    abuseScore: number,
    decision: DecisionOutcome,
    subDecision: string,
    extra: Partial<Decision> = {},
  ) =>
    ({
      decision,
      subDecision,
      decisionType: 'APPROVE/DECLINE',
      reason: '',
      abuseScore,
      modelVersion: 'm',
      workflowVersion: 'default-order-1',
      signals: {},
      fields: { orderValue: 100 },
      ...extra,
    }) satisfies Decision;

  it('counts changed outcomes and branches, with examples, from the stored variables', async () => {
    const candidate = workflow([
      rule('score_60', 'abuseScore >= 60'),
      rule('big', 'orderValue >= 1000.0'),
      rule('approve_vip', 'abuseScore < 5', 'APPROVE'),
    ]);
    const report = backtest(await loadWorkflow(candidate), [
      {
        eventId: 'o1',
        createdAt: '2026-01-01T00:00:00.000Z',
        decisions: [stored(70, 'APPROVE', 'default_approve')],
      },
      {
        eventId: 'o2',
        createdAt: '2026-01-01T00:00:01.000Z',
        decisions: [stored(90, 'DECLINE', 'high_abuse_score')],
      },
      {
        eventId: 'o3',
        createdAt: '2026-01-01T00:00:02.000Z',
        decisions: [stored(10, 'APPROVE', 'default_approve', { fields: { orderValue: 1500 } })],
      },
      {
        eventId: 'o4',
        createdAt: '2026-01-01T00:00:03.000Z',
        decisions: [stored(2, 'APPROVE', 'default_approve')],
      },
      {
        eventId: 'o5',
        createdAt: '2026-01-01T00:00:04.000Z',
        decisions: [stored(20, 'APPROVE', 'default_approve', { fields: undefined })],
      },
    ]);
    expect(report).toMatchObject({
      events: 5,
      decisions: 5,
      changed: 2,
      branchChanged: 2,
      transitions: { 'APPROVE -> DECLINE': 2 },
      branchTransitions: {
        'APPROVE (default_approve) -> DECLINE (score_60)': 1,
        'DECLINE (high_abuse_score) -> DECLINE (score_60)': 1,
        'APPROVE (default_approve) -> DECLINE (big)': 1,
        'APPROVE (default_approve) -> APPROVE (approve_vip)': 1,
      },
      outcomes: { current: { APPROVE: 4, DECLINE: 1 }, candidate: { APPROVE: 2, DECLINE: 3 } },
      decisionsWithoutFields: 1,
    });
    expect(report.examples.map((e) => [e.eventId, e.to.subDecision])).toEqual([
      ['o1', 'score_60'],
      ['o3', 'big'],
    ]);
  });
});
