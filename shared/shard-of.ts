/** A stable shard in [0, shards) for an id (FNV-1a): the same id always lands on the same shard. */
export function shardOf(id: string, shards: number): number {
  let hash = 2166136261;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 16777619) >>> 0;
  return hash % shards;
}
