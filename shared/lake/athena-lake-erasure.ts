import { randomUUID } from 'node:crypto';
import { CopyObjectCommand } from '@aws-sdk/client-s3';
import { bucketClient, deleteObjectKeys, objectKeys } from '../s3-client.ts';
import { type AthenaSettings, athenaRunner, runOnAthena } from './athena-runner.ts';
import { ERASURE_STAGING_PREFIX, erasePartitions, type LakeEraser } from './lake-erasure.ts';

/**
 * The erasure on the lake in AWS (docs/lake.md, Deletions and erasure): the partitions are found
 * with Athena, and each is rewritten: UNLOAD writes its kept rows as Parquet under a staging prefix
 * of the lake bucket (UNLOAD writes only to an empty location, and the partition is not one), the
 * staged files are copied into the partition, then the objects the rows were read from are deleted.
 * Firehose's files are never rewritten in place, so a delivery landing meanwhile stays untouched (a
 * later pass takes out any row of the customer it brings). A failure in between leaves rows twice,
 * never none; staged files left behind expire with the bucket's rule for the prefix.
 */

/** What is spliced into UNLOAD's location: the service's own ids and days, checked all the same. */
const SAFE_KEY = /^[A-Za-z0-9_=/.-]+$/;

const s3 = bucketClient();

export function athenaLakeEraser(settings: AthenaSettings & { bucket: string }): LakeEraser {
  return (erasure) =>
    erasePartitions(athenaRunner(settings), erasure, async (rewrite) => {
      const readFrom = await objectKeys(s3, settings.bucket, rewrite.path);
      if (rewrite.keepsRows) {
        const id = randomUUID();
        const staging = `${ERASURE_STAGING_PREFIX}${id}/`;
        if (!SAFE_KEY.test(rewrite.path)) throw new Error(`unexpected lake partition ${rewrite.path}`);
        await runOnAthena(
          `UNLOAD (${rewrite.query.text}) TO 's3://${settings.bucket}/${staging}' WITH (format = 'PARQUET', compression = 'SNAPPY')`,
          rewrite.values,
          settings,
          `${rewrite.query.name}.sql (UNLOAD)`,
        );
        const staged = await objectKeys(s3, settings.bucket, staging);
        for (const [index, key] of staged.entries()) {
          await s3.send(
            new CopyObjectCommand({
              Bucket: settings.bucket,
              CopySource: `${settings.bucket}/${key}`,
              Key: `${rewrite.path}erasure-${id}-${index}.parquet`,
            }),
          );
        }
        await deleteObjectKeys(s3, settings.bucket, staged);
      }
      await deleteObjectKeys(s3, settings.bucket, readFrom);
    });
}
