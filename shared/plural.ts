/** `row` for one, `rows` for any other count: the noun alone (the count is shown apart). */
export function nounFor(count: number, singular: string, pluralForm = `${singular}s`): string {
  return count === 1 ? singular : pluralForm;
}

/** `1 row`, `2 rows`: a count with its noun in the right number. */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${nounFor(count, singular, pluralForm)}`;
}

/**
 * A counted phrase in the plural (`orders`, `login successes`, `device accounts tried`) said of one:
 * its last plural noun made singular (`order`, `login success`, `device account tried`).
 */
export function countedPhrase(count: number, pluralPhrase: string): string {
  if (count !== 1) return `${count} ${pluralPhrase}`;
  const words = pluralPhrase.split(' ');
  const last = words.findLastIndex((word) => word.endsWith('s') && !word.endsWith('ss'));
  if (last >= 0) words[last] = words[last]!.replace(/(ss)es$|s$/, '$1');
  return `${count} ${words.join(' ')}`;
}
