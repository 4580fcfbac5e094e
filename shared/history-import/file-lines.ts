/**
 * A history file read as a stream of lines with their byte offsets, so that memory stays bounded
 * whatever the file's size and a later run can start reading again at a recorded line.
 */
export interface FilePosition {
  /** Byte offset of a line's first byte. */
  byte: number;
  /** That line's 1-based number in the file. */
  line: number;
}

export interface FileLine extends FilePosition {
  /** The line without its newline; undefined when it is longer than MAX_LINE_BYTES (a bad line). */
  text: string | undefined;
  /** Byte offset just past its newline: where the next line starts. */
  next: number;
}

/** No history line comes near this (an order of 100 items is about 30 KB): past it, the line is bad. */
export const MAX_LINE_BYTES = 1_048_576;

const NEWLINE = 0x0a;

/** The lines of `chunks`, the bytes of the file from `from` on. */
export async function* fileLines(
  chunks: AsyncIterable<Uint8Array>,
  from: FilePosition,
): AsyncGenerator<FileLine> {
  let parts: Uint8Array[] = [];
  let held = 0;
  let tooLong = false;
  let start = from.byte;
  let line = from.line;
  const take = (end: number): FileLine => {
    const text = tooLong ? undefined : Buffer.concat(parts).toString('utf8');
    const read = { text, byte: start, line, next: end };
    parts = [];
    held = 0;
    tooLong = false;
    start = end;
    line++;
    return read;
  };
  let offset = from.byte;
  for await (const chunk of chunks) {
    let cut = 0;
    for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, cut)) {
      hold(chunk.subarray(cut, at));
      cut = at + 1;
      yield take(offset + cut);
    }
    hold(chunk.subarray(cut));
    offset += chunk.length;
  }
  if (held > 0 || tooLong) yield take(offset);

  function hold(part: Uint8Array) {
    if (part.length === 0 || tooLong) return;
    held += part.length;
    if (held > MAX_LINE_BYTES) {
      // The line is refused anyway: keep none of it.
      tooLong = true;
      parts = [];
      return;
    }
    parts.push(part);
  }
}
