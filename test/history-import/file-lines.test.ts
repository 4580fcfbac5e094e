import { describe, expect, it } from 'vitest';
import { fileLines, MAX_LINE_BYTES } from '../../shared/history-import/file-lines.ts';

/** `text`'s bytes in chunks of `size`: a stream cuts lines (and characters) anywhere. */
async function* chunksOf(bytes: Buffer, size: number) {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function linesOf(bytes: Buffer, size: number, from = { byte: 0, line: 1 }) {
  const lines = [];
  for await (const line of fileLines(chunksOf(bytes.subarray(from.byte), size), from)) lines.push(line);
  return lines;
}

describe('fileLines', () => {
  const bytes = Buffer.from('{"a":"é"}\n\n{"b":"€ 2"}\n{"c":3}');

  it.each([1, 2, 3, 7, 1000])('reads the same lines and byte offsets in chunks of %i bytes', async (size) => {
    expect(await linesOf(bytes, size)).toEqual([
      { text: '{"a":"é"}', byte: 0, line: 1, next: 11 },
      { text: '', byte: 11, line: 2, next: 12 },
      { text: '{"b":"€ 2"}', byte: 12, line: 3, next: 26 },
      { text: '{"c":3}', byte: 26, line: 4, next: 33 },
    ]);
  });

  it('starts again at a recorded line: the same lines from there on', async () => {
    const all = await linesOf(bytes, 5);
    expect(await linesOf(bytes, 5, { byte: all[2]!.byte, line: all[2]!.line })).toEqual(all.slice(2));
  });

  it('gives a line longer than the limit no text, keeps none of it, and reads on', async () => {
    const long = Buffer.concat([Buffer.alloc(MAX_LINE_BYTES + 10, 'x'), Buffer.from('\n{"d":4}\n')]);
    const lines = await linesOf(long, 65_536);
    expect(lines).toEqual([
      { text: undefined, byte: 0, line: 1, next: MAX_LINE_BYTES + 11 },
      { text: '{"d":4}', byte: MAX_LINE_BYTES + 11, line: 2, next: MAX_LINE_BYTES + 19 },
    ]);
  });
});
