/** A uniform draw in [0, 1) fixed by `key` (FNV-1a), independent of any random stream. */
export function stableChance(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  // Murmur3's finalizer spreads the last characters over every bit.
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return ((hash ^ (hash >>> 16)) >>> 0) / 4294967296;
}

/** The item of weighted `shares` at `draw` (a draw in [0, 1) over their total). */
export function weighted<T>(shares: readonly (readonly [T, number])[], draw: number): T {
  const total = shares.reduce((sum, [, share]) => sum + share, 0);
  let left = draw * total;
  for (const [item, share] of shares) {
    left -= share;
    if (left < 0) return item;
  }
  return shares[shares.length - 1]![0];
}
