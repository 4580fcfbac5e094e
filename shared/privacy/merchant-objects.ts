import { DeleteObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { bucketClient } from '../s3-client.ts';

/**
 * A merchant's objects in the service's buckets, under its own prefix (`<merchantId>/`): history
 * files in the imports bucket, privacy exports in the exports bucket. The buckets the environment
 * names (IMPORT_BUCKET, EXPORTS_BUCKET); one not set is reported as such.
 */
const BUCKETS = { imports: 'IMPORT_BUCKET', exports: 'EXPORTS_BUCKET' } as const;

export type BucketReceipt = Record<keyof typeof BUCKETS, number | 'not configured'>;

export async function deleteMerchantObjects(merchantId: string): Promise<BucketReceipt> {
  const s3 = bucketClient();
  const receipt = {} as BucketReceipt;
  for (const [name, variable] of Object.entries(BUCKETS) as [keyof typeof BUCKETS, string][]) {
    const bucket = process.env[variable];
    if (!bucket) {
      receipt[name] = 'not configured';
      continue;
    }
    let deleted = 0;
    let token: string | undefined;
    do {
      const page = await s3.send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: `${merchantId}/`, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) {
        await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: object.Key }));
        deleted++;
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    receipt[name] = deleted;
  }
  return receipt;
}
