import { describe, expect, it } from 'vitest';
import { historyLines, toNdjson } from '../../eval/history-file.ts';
import { EVERYTHING, parseImportFile } from '../../shared/history-import/import-lines.ts';

const START = Date.UTC(2026, 0, 10);
const lines = historyLines({ shoppers: 6, seed: 3, start: START });

describe('parseImportFile', () => {
  it('reads lines in file order; a disposition keeps the time of the line before it', () => {
    const { events, problems } = parseImportFile(toNdjson(lines));
    expect(problems).toEqual([]);
    expect(events).toHaveLength(lines.length);
    for (let i = 1; i < events.length; i++) {
      const [a, b] = [events[i - 1]!, events[i]!];
      expect(a.line < b.line && a.at <= b.at).toBe(true);
    }
    for (const event of events.filter((e) => e.type === 'disposition')) {
      const before = events.find((e) => e.line === event.line - 1)!;
      expect(before.type).toBe('return');
      expect(event.at).toBe(before.at);
    }
  });

  it('refuses a line earlier than the line above it, naming both times', () => {
    const [first, second] = [lines[0]!, lines[1]!].map((l) => JSON.stringify(l));
    const { problems } = parseImportFile(`${second}\n${first}\n`);
    expect(problems).toEqual([
      {
        line: 2,
        code: 'invalid_request',
        field: 'body.timestamp',
        message: expect.stringContaining('Lines must be in event-time order'),
      },
    ]);
  });

  it('gives identical lines their own seeds, and the same line the same seed in any file', () => {
    const login = JSON.stringify(lines.find((l) => l.type === 'login'));
    const { events } = parseImportFile(`${login}\n${login}\n`);
    expect(events.map((e) => e.idSeed)).toHaveLength(2);
    expect(events[0]!.idSeed).not.toBe(events[1]!.idSeed);
    expect(parseImportFile(`${login}\n`).events[0]!.idSeed).toBe(events[0]!.idSeed);
  });

  it('lets returns, dispositions and disputes touch their order line identities, or everything without one', () => {
    const { events } = parseImportFile(toNdjson(lines));
    const returned = events.find((e) => e.type === 'return');
    expect(returned).toBeDefined();
    const order = events.find(
      (e) =>
        e.type === 'order' &&
        returned?.type === 'return' &&
        e.body.providerOrderId === returned.body.providerOrderId,
    )!;
    expect(returned!.touches).toEqual(expect.arrayContaining(order.touches));
    const orphan = lines.find((l) => l.type === 'return');
    expect(orphan).toBeDefined();
    expect(parseImportFile(`${JSON.stringify(orphan)}\n`).events[0]!.touches).toEqual([EVERYTHING]);
  });

  it.each([
    ['not JSON', '{"type":', 'invalid_request', undefined],
    ['an unknown type', '{"type":"refund","body":{}}', 'unprocessable_entity', 'type'],
    ['a body field the endpoint refuses', 'BAD_TIMESTAMP', 'invalid_timestamp', 'body.timestamp'],
    ['a signup without a time', 'UNDATED_SIGNUP', 'invalid_request', 'body.timestamp'],
    ['a dispute without its order id', 'DISPUTE_WITHOUT_ORDER', 'invalid_request', 'orderId'],
  ])('reports %s with its line number and field', (_label, bad, code, field) => {
    const signup = lines.find((l) => l.type === 'signup')!;
    const dispute = lines.find((l) => l.type === 'dispute') ?? {
      type: 'dispute',
      orderId: 'o',
      body: { dispute: [] },
    };
    const replacement =
      bad === 'BAD_TIMESTAMP'
        ? JSON.stringify({ ...signup, body: { ...(signup.body as object), timestamp: '2026' } })
        : bad === 'UNDATED_SIGNUP'
          ? JSON.stringify({ ...signup, body: { ...(signup.body as object), timestamp: undefined } })
          : bad === 'DISPUTE_WITHOUT_ORDER'
            ? JSON.stringify({ ...dispute, orderId: undefined })
            : bad;
    const file = [JSON.stringify(lines[0]), JSON.stringify(lines[1]), replacement].join('\n');
    const { problems } = parseImportFile(file);
    expect(problems).toEqual([{ line: 3, code, ...(field ? { field } : {}), message: expect.any(String) }]);
  });
});
