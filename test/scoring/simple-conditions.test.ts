import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, type EventType } from '../../shared/contract/endpoints.ts';
import { compileCondition } from '../../shared/scoring/cel-compiler.ts';
import { type Activation, compileSimpleCondition } from '../../shared/scoring/simple-conditions.ts';
import { type VariableType, workflowVariables } from '../../shared/scoring/variables.ts';
import { DEFAULT_WORKFLOWS } from '../../shared/scoring/workflow.ts';

/**
 * The simple subset (compiled without cel-js) must decide exactly as cel-js does, wherever it
 * accepts a condition; everything else must be left to cel-js.
 */

const STRINGS = ['', 'PAID', 'PENDING', '840', 'a b'];

const namesOf = (eventType: EventType, type: VariableType) =>
  workflowVariables(eventType)
    .filter((v) => v.type === type)
    .map((v) => v.name);

/** Values near the literals below, so comparisons land on both sides and on equality. */
function activationArbitrary(eventType: EventType): fc.Arbitrary<Activation> {
  const byType: Record<VariableType, fc.Arbitrary<Activation[string]>> = {
    int: fc.integer({ min: -3, max: 120 }).map(BigInt),
    double: fc.oneof(
      fc.integer({ min: -3, max: 120 }),
      fc.double({ min: -1e6, max: 1e6, noNaN: true }),
      fc.constantFrom(0.5, 12.25, -0),
    ),
    string: fc.constantFrom(...STRINGS),
    bool: fc.boolean(),
  };
  return fc.record(
    Object.fromEntries(workflowVariables(eventType).map((v) => [v.name, byType[v.type]])),
  ) as fc.Arbitrary<Activation>;
}

const space = fc.constantFrom('', ' ', '  ');
const intLiteral = fc
  .oneof(fc.integer({ min: 0, max: 120 }), fc.constantFrom(9_007_199_254_740_991))
  .map(String);
const doubleLiteral = fc
  .tuple(fc.integer({ min: 0, max: 120 }), fc.constantFrom('0', '5', '25', '125'))
  .map(([whole, fraction]) => `${whole}.${fraction}`);
const stringLiteral = fc
  .tuple(fc.constantFrom(...STRINGS), fc.constantFrom('"', "'"))
  .map(([text, quote]) => `${quote}${text}${quote}`);
const negated = (literal: fc.Arbitrary<string>) =>
  fc.oneof(
    literal,
    fc.tuple(space, literal).map(([s, l]) => `-${s}${l}`),
  );

/** Well-typed bool expressions inside the subset, over one event type's variables. */
function subsetExpression(eventType: EventType): fc.Arbitrary<string> {
  /** A variable of the type; a literal where the event type has none (returns have no bool). */
  const name = (type: VariableType) => {
    const names = namesOf(eventType, type);
    return names.length > 0
      ? fc.constantFrom(...names)
      : {
          int: intLiteral,
          double: doubleLiteral,
          string: stringLiteral,
          bool: fc.constantFrom('true', 'false'),
        }[type];
  };
  const number = fc.oneof(name('int'), name('double'), negated(intLiteral), negated(doubleLiteral));
  const sameType = fc.oneof(
    fc.tuple(fc.oneof(name('int'), negated(intLiteral)), fc.oneof(name('int'), negated(intLiteral))),
    fc.tuple(fc.oneof(name('double'), negated(doubleLiteral)), fc.oneof(name('double'), doubleLiteral)),
    fc.tuple(fc.oneof(name('string'), stringLiteral), fc.oneof(name('string'), stringLiteral)),
    fc.tuple(fc.oneof(name('bool'), fc.constantFrom('true', 'false')), name('bool')),
  );
  const binary = (ops: string[], left: fc.Arbitrary<string>, right: fc.Arbitrary<string>) =>
    fc.tuple(left, space, fc.constantFrom(...ops), space, right).map((parts) => parts.join(''));
  const { bool } = fc.letrec<{ bool: string }>((tie) => ({
    bool: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      name('bool'),
      fc.constantFrom('true', 'false'),
      binary(['<', '<=', '>', '>='], number, number),
      sameType.chain(([l, r]) => binary(['==', '!='], fc.constant(l), fc.constant(r))),
      name('bool').map((b) => `!${b}`),
      tie('bool').map((b) => `!(${b})`),
      tie('bool').map((b) => `(${b})`),
      binary(['&&', '||'], tie('bool'), tie('bool')).map((b) => `(${b})`),
    ),
  }));
  return bool;
}

/** Anything from the same pieces, types ignored: most are refused by one or both. */
function anyExpression(eventType: EventType): fc.Arbitrary<string> {
  const leaf = fc.oneof(
    fc.constantFrom(...workflowVariables(eventType).map((v) => v.name)),
    negated(intLiteral),
    negated(doubleLiteral),
    stringLiteral,
    fc.constantFrom('true', 'false', 'null', '1e3', '5u', '0x10', 'r"PAID"', '[1, 2]', 'size("ab")'),
  );
  const { any } = fc.letrec<{ any: string }>((tie) => ({
    any: fc.oneof(
      { depthSize: 'small' },
      leaf,
      tie('any').map((x) => `!${x}`),
      tie('any').map((x) => `(${x})`),
      fc
        .tuple(
          tie('any'),
          fc.constantFrom(' ', '\t', '\n', '\r', '\f', '\u00a0', ''),
          fc.constantFrom('==', '!=', '<', '<=', '>', '>=', '&&', '||', '+', ' in '),
          fc.constantFrom(' ', '\t', '\n', '\r', '\f', '\u00a0', ''),
          tie('any'),
        )
        .map((parts) => parts.join('')),
    ),
  }));
  return any;
}

function expectSameResults(eventType: EventType, expression: string, activations: Activation[]): boolean {
  const simple = compileSimpleCondition(workflowVariables(eventType), expression);
  const cel = compileCondition(eventType, expression, workflowVariables(eventType));
  if (!simple) return false;
  expect(cel.ok, expression).toBe(true);
  if (!cel.ok) return true;
  for (const activation of activations) expect(simple(activation), expression).toBe(cel.run(activation));
  return true;
}

describe('simple conditions: the subset compiled without cel-js', () => {
  it("covers every default workflow's conditions, with cel-js's results", () => {
    for (const eventType of EVENT_TYPES) {
      const activations = fc.sample(activationArbitrary(eventType), 200);
      for (const rule of DEFAULT_WORKFLOWS[eventType].rules)
        expect(expectSameResults(eventType, rule.condition, activations), rule.condition).toBe(true);
    }
  });

  it.each(EVENT_TYPES)('decides every well-typed %s condition of the subset as cel-js does', (eventType) => {
    fc.assert(
      fc.property(
        subsetExpression(eventType),
        fc.array(activationArbitrary(eventType), { minLength: 8, maxLength: 8 }),
        (expression, activations) => {
          expect(expectSameResults(eventType, expression, activations), expression).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('accepts only what cel-js accepts, with the same results', () => {
    fc.assert(
      fc.property(
        anyExpression('order'),
        fc.array(activationArbitrary('order'), { minLength: 4, maxLength: 4 }),
        (expression, activations) => {
          expectSameResults('order', expression, activations);
        },
      ),
      { numRuns: 400 },
    );
  });

  it.each([
    ['a function', 'orderState.startsWith("PA")'],
    ['a list and `in`', 'currencyCode in ["840", "978"]'],
    ['arithmetic', 'abuseScore / 0 > 1'],
    ['string ordering', '"A" < orderState'],
    ['a raw string', 'orderState == r"PAID"'],
    ['an escape', 'orderState == "P\\u0041ID"'],
    ['an exponent', 'orderValue > 1e3'],
    ['an unsigned literal', 'abuseScore > 5u'],
    ['an int beyond 2^53', 'abuseScore < 9007199254740993'],
    ['int == double (cel-js: no such overload)', 'abuseScore == 5.0'],
    ['a chained relation', 'abuseScore < 5 == true'],
    ['an unknown variable', 'abuseScor >= 80'],
    ['a non-bool result', 'abuseScore'],
    ['a ternary', 'hasDeviceFingerprint ? true : false'],
    ['whitespace cel-js refuses (no-break space)', 'abuseScore\u00a0>= 5'],
    ['whitespace cel-js refuses (form feed)', 'abuseScore\f>= 5'],
  ])('leaves %s to cel-js', (_label, expression) => {
    expect(compileSimpleCondition(workflowVariables('order'), expression)).toBeUndefined();
  });
});
