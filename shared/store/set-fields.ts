/** A `SET` of each field given a value, with its placeholders: one update of several attributes. */
export function setFields(changes: Record<string, unknown>) {
  const fields = Object.entries(changes).filter(([, value]) => value !== undefined);
  return {
    expression: `SET ${fields.map((_, i) => `#f${i} = :f${i}`).join(', ')}`,
    names: Object.fromEntries(fields.map(([name], i) => [`#f${i}`, name])),
    values: Object.fromEntries(fields.map(([, value], i) => [`:f${i}`, value])),
  };
}
