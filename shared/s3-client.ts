import { DeleteObjectsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { readRuntimeConfig } from './config.ts';
import { traceAwsClient } from './tracing.ts';

/**
 * The S3 client of the service's buckets (imports, exports), built once per process. S3_ENDPOINT (local runs and tests only)
 * points it at an S3-compatible server, path-style, with dummy credentials when none are set.
 */
export function bucketClient(env: NodeJS.ProcessEnv = process.env): S3Client {
  const endpoint = env.S3_ENDPOINT || undefined;
  return traceAwsClient(
    new S3Client({
      region: readRuntimeConfig(env).region,
      ...(endpoint
        ? {
            endpoint,
            forcePathStyle: true,
            credentials: {
              accessKeyId: env.AWS_ACCESS_KEY_ID ?? 'local',
              secretAccessKey: env.AWS_SECRET_ACCESS_KEY ?? 'local',
            },
          }
        : {}),
    }),
  );
}

/** Every object key under a prefix, page by page. */
export async function objectKeys(client: S3Client, bucket: string, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
    );
    for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return keys;
}

/** Deletes objects by key, a thousand a call; fails naming any it could not delete. */
export async function deleteObjectKeys(
  client: S3Client,
  bucket: string,
  keys: readonly string[],
): Promise<void> {
  for (let start = 0; start < keys.length; start += 1000) {
    const { Errors } = await client.send(
      new DeleteObjectsCommand({
        Bucket: bucket,
        Delete: { Objects: keys.slice(start, start + 1000).map((Key) => ({ Key })), Quiet: true },
      }),
    );
    if (Errors?.length) throw new Error(`objects not deleted: ${Errors.map((e) => e.Key).join(', ')}`);
  }
}
