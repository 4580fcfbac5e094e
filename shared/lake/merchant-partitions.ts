import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bucketClient, deleteObjectKeys, objectKeys } from '../s3-client.ts';
import { LAKE_TABLE_NAMES, LAKE_TABLES } from './lake-tables.ts';

/**
 * An offboarded merchant's lake (docs/operations.md, offboarding): every partition of its, under
 * every table and kind, deleted by prefix (`<table>/kind=<kind>/merchant_id=<id>/` holds all its
 * days), with no query over its rows. Each prefix goes on its own, so a run cut off is resumed by
 * running it again, and a second run finds nothing.
 */
export type LakeLocation = { bucket: string } | { dir: string };

const merchantPrefixes = (merchantId: string) =>
  LAKE_TABLE_NAMES.flatMap((table) =>
    LAKE_TABLES[table].kinds.map((kind) => `${table}/kind=${kind}/merchant_id=${merchantId}/`),
  );

/** Deletes the merchant's lake files; answers how many. */
export async function deleteMerchantPartitions(merchantId: string, lake: LakeLocation): Promise<number> {
  let deleted = 0;
  for (const prefix of merchantPrefixes(merchantId)) {
    if ('bucket' in lake) {
      const s3 = bucketClient();
      const keys = await objectKeys(s3, lake.bucket, prefix);
      await deleteObjectKeys(s3, lake.bucket, keys);
      deleted += keys.length;
      continue;
    }
    const folder = join(lake.dir, prefix);
    if (!existsSync(folder)) continue;
    const files = readdirSync(folder, { recursive: true, encoding: 'utf8' });
    deleted += files.filter((name) => name.endsWith('.parquet')).length;
    rmSync(folder, { recursive: true, force: true });
  }
  return deleted;
}
