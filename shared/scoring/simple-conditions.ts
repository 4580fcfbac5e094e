import type { VariableType, WorkflowVariable } from './variables.ts';

/**
 * Conditions in a small subset of CEL, compiled without cel-js: variables, int / double / string /
 * bool literals, comparisons, `&&`, `||`, `!` and parentheses, e.g. `abuseScore >= modelDeclineAt`
 * (every default workflow) or `orderValue > 500.0 && !hasDeviceFingerprint`. A process whose
 * workflows stay inside it never loads cel-js (workflow-engine.ts). Anything outside the subset
 * (functions, macros, lists, string ordering, escapes, other literal forms) and anything the
 * subset's type rules refuse compiles to `undefined`: cel-js then decides, errors included.
 * test/scoring/simple-conditions.test.ts proves the results equal cel-js's.
 */

/** The CEL activation (variables.ts `celActivation`): ints are BigInts, doubles numbers. */
export type Activation = Readonly<Record<string, bigint | number | string | boolean>>;
type Value = Activation[string];
export type SimpleCondition = (activation: Activation) => boolean;

interface Typed {
  type: VariableType;
  value: (activation: Activation) => Value;
}

type Token =
  | { kind: 'name'; text: string }
  | { kind: 'literal'; type: VariableType; value: Value }
  | { kind: 'op'; text: string };

/** Longest operators first, so `<=` is not read as `<` then `=`. */
const OPERATORS = ['&&', '||', '==', '!=', '<=', '>=', '<', '>', '!', '-', '(', ')'];
const TOKEN =
  /(?:([A-Za-z_][A-Za-z0-9_]*)|(0|[1-9][0-9]*)\.([0-9]+)(?![0-9A-Za-z_.])|(0|[1-9][0-9]*)(?![0-9A-Za-z_.])|"([^"\\\n\r]*)"|'([^'\\\n\r]*)')/y;

/** The whitespace cel-js takes: JavaScript's `\s` also takes characters it refuses (form feed, NBSP). */
const WHITESPACE = new Set([' ', '\t', '\n', '\r']);

function tokenize(text: string): Token[] | undefined {
  const tokens: Token[] = [];
  let at = 0;
  while (at < text.length) {
    if (WHITESPACE.has(text[at] ?? '')) {
      at++;
      continue;
    }
    const rest = text.slice(at);
    const op = OPERATORS.find((o) => rest.startsWith(o));
    if (op) {
      tokens.push({ kind: 'op', text: op });
      at += op.length;
      continue;
    }
    TOKEN.lastIndex = at;
    const m = TOKEN.exec(text);
    if (!m) return undefined;
    at = TOKEN.lastIndex;
    const [, name, whole, fraction, int, double, single] = m;
    if (name === 'true' || name === 'false')
      tokens.push({ kind: 'literal', type: 'bool', value: name === 'true' });
    else if (name !== undefined) tokens.push({ kind: 'name', text: name });
    else if (whole !== undefined)
      tokens.push({ kind: 'literal', type: 'double', value: Number(`${whole}.${fraction}`) });
    else if (int !== undefined) {
      // Beyond 2^53 cel-js and JavaScript numbers part ways: leave those to cel-js.
      if (!Number.isSafeInteger(Number(int))) return undefined;
      tokens.push({ kind: 'literal', type: 'int', value: BigInt(int) });
    } else tokens.push({ kind: 'literal', type: 'string', value: double ?? single ?? '' });
  }
  return tokens;
}

const EQUALITY = new Set(['==', '!=']);
const ORDERING = new Set(['<', '<=', '>', '>=']);
const isNumber = (type: VariableType) => type === 'int' || type === 'double';

/** Recursive descent with CEL's precedence: `||` < `&&` < one relation < unary `!` / `-`. */
class Parser {
  private at = 0;
  private readonly tokens: Token[];
  private readonly variables: ReadonlyMap<string, VariableType>;

  constructor(tokens: Token[], variables: ReadonlyMap<string, VariableType>) {
    this.tokens = tokens;
    this.variables = variables;
  }

  parse(): Typed | undefined {
    const expression = this.or();
    return this.at === this.tokens.length ? expression : undefined;
  }

  private takeOp(text: string): boolean {
    const token = this.tokens[this.at];
    if (token?.kind !== 'op' || token.text !== text) return false;
    this.at++;
    return true;
  }

  private or(): Typed | undefined {
    return this.chain(
      '||',
      () => this.and(),
      (l, r) => (a) => l(a) === true || r(a) === true,
    );
  }

  private and(): Typed | undefined {
    return this.chain(
      '&&',
      () => this.relation(),
      (l, r) => (a) => l(a) === true && r(a) === true,
    );
  }

  /** Operands can never fail here, so short-circuiting equals CEL's commutative `&&` / `||`. */
  private chain(
    op: string,
    operand: () => Typed | undefined,
    join: (l: Typed['value'], r: Typed['value']) => Typed['value'],
  ): Typed | undefined {
    let left = operand();
    while (left && this.takeOp(op)) {
      const right = operand();
      if (left.type !== 'bool' || right?.type !== 'bool') return undefined;
      left = { type: 'bool', value: join(left.value, right.value) };
    }
    return left;
  }

  private relation(): Typed | undefined {
    const left = this.unary();
    const token = this.tokens[this.at];
    if (!left || token?.kind !== 'op' || !(EQUALITY.has(token.text) || ORDERING.has(token.text))) return left;
    this.at++;
    const right = this.unary();
    if (!right) return undefined;
    const next = this.tokens[this.at];
    if (next?.kind === 'op' && (EQUALITY.has(next.text) || ORDERING.has(next.text))) return undefined;
    const compare = comparison(token.text, left, right);
    return compare && { type: 'bool', value: compare };
  }

  private unary(): Typed | undefined {
    if (this.takeOp('!')) {
      const operand = this.unary();
      if (operand?.type !== 'bool') return undefined;
      return { type: 'bool', value: (a) => operand.value(a) !== true };
    }
    if (this.takeOp('-')) {
      const token = this.tokens[this.at++];
      if (token?.kind !== 'literal' || !isNumber(token.type)) return undefined;
      const negated = token.type === 'int' ? -(token.value as bigint) : -(token.value as number);
      return { type: token.type, value: () => negated };
    }
    return this.primary();
  }

  private primary(): Typed | undefined {
    const token = this.tokens[this.at++];
    if (!token) return undefined;
    if (token.kind === 'literal') return { type: token.type, value: () => token.value };
    if (token.kind === 'name') {
      const type = this.variables.get(token.text);
      const name = token.text;
      return type && { type, value: (a) => a[name] ?? false };
    }
    if (token.text !== '(') return undefined;
    const inner = this.or();
    return inner && this.takeOp(')') ? inner : undefined;
  }
}

/**
 * The comparisons cel-js type-checks and the subset keeps: equality of two values of one type, and
 * ordering of numbers (int and double mix, compared exactly, as BigInt and number do in JavaScript).
 */
function comparison(op: string, left: Typed, right: Typed): Typed['value'] | undefined {
  const l = left.value;
  const r = right.value;
  if (EQUALITY.has(op)) {
    if (left.type !== right.type) return undefined;
    return op === '==' ? (a) => l(a) === r(a) : (a) => l(a) !== r(a);
  }
  if (!isNumber(left.type) || !isNumber(right.type)) return undefined;
  switch (op) {
    case '<':
      return (a) => (l(a) as number) < (r(a) as number);
    case '<=':
      return (a) => (l(a) as number) <= (r(a) as number);
    case '>':
      return (a) => (l(a) as number) > (r(a) as number);
    default:
      return (a) => (l(a) as number) >= (r(a) as number);
  }
}

/** The condition as a function of the activation, or `undefined` when cel-js must compile it. */
export function compileSimpleCondition(
  variables: readonly WorkflowVariable[],
  expression: string,
): SimpleCondition | undefined {
  const tokens = tokenize(expression);
  if (!tokens) return undefined;
  const types = new Map(variables.map((v) => [v.name, v.type]));
  const typed = new Parser(tokens, types).parse();
  if (typed?.type !== 'bool') return undefined;
  const value = typed.value;
  return (activation) => value(activation) === true;
}
