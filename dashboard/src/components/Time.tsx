import { format } from '../format.ts';

/**
 * A moment as the person reads it (`format.dateTime`, or `format.date` for `date`), in a <time>
 * element the stylesheet isolates: an Arabic date (right to left, with its marks) keeps its own
 * order inside an English sentence, and the sentence keeps its own around it.
 */
export function Time({ value, date = false }: { value: string; date?: boolean }) {
  return <time dateTime={value}>{date ? format.date(value) : format.dateTime(value)}</time>;
}
