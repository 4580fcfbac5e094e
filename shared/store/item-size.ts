/**
 * An item's size as DynamoDB counts it for capacity and the 400 KB limit, from its wire form
 * (`marshall` of @aws-sdk/util-dynamodb): attribute names plus values, numbers about one byte per two
 * digits plus one. What `npm run bench -- scale` and the tests measure identity items with.
 */
export function itemBytes(item: Record<string, unknown>): number {
  let total = 0;
  for (const [name, value] of Object.entries(item)) total += Buffer.byteLength(name) + valueBytes(value);
  return total;
}

function valueBytes(value: unknown): number {
  const v = value as Record<string, unknown>;
  if ('S' in v) return Buffer.byteLength(String(v.S));
  if ('N' in v) return numberBytes(String(v.N));
  if ('B' in v) return (v.B as Uint8Array).length;
  if ('BOOL' in v || 'NULL' in v) return 1;
  if ('SS' in v) return (v.SS as string[]).reduce((s, x) => s + Buffer.byteLength(x), 0);
  if ('NS' in v) return (v.NS as string[]).reduce((s, x) => s + numberBytes(x), 0);
  if ('BS' in v) return (v.BS as Uint8Array[]).reduce((s, x) => s + x.length, 0);
  if ('L' in v) return 3 + (v.L as unknown[]).reduce<number>((s, x) => s + 1 + valueBytes(x), 0);
  if ('M' in v) return 3 + itemBytes(v.M as Record<string, unknown>) + Object.keys(v.M as object).length;
  return 0;
}

function numberBytes(text: string): number {
  const digits = text.replace(/^-/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
}
