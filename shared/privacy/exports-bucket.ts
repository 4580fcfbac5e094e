import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { bucketClient } from '../s3-client.ts';

/**
 * Privacy exports in their private bucket (EXPORTS_BUCKET), one object per request under the
 * merchant's prefix; the object expires with the bucket's lifecycle rule and its link sooner.
 * Locally and in tests S3_ENDPOINT points the client at an S3-compatible stand-in.
 */
export const EXPORT_LINK_SECONDS = 7 * 86_400;

const bucket = () => {
  const name = process.env.EXPORTS_BUCKET;
  if (!name) throw new Error('EXPORTS_BUCKET is not set');
  return name;
};

let client: ReturnType<typeof bucketClient> | undefined;
const s3 = () => {
  client ??= bucketClient();
  return client;
};

export const exportObjectKey = (merchantId: string, requestId: string) =>
  `${merchantId}/privacy/${requestId}.json`;

/** Every key exportObjectKey makes, as an IAM resource pattern (the worker may write these only). */
export const EXPORTS_PREFIX_PATTERN = '*/privacy/*';

export async function writeExport(key: string, document: string): Promise<void> {
  await s3().send(
    new PutObjectCommand({ Bucket: bucket(), Key: key, Body: document, ContentType: 'application/json' }),
  );
}

/** A GET link to the export, valid until `expiresAt` (epoch ms); none once it has passed. */
export async function exportLink(key: string, expiresAt: number, now: number): Promise<string | undefined> {
  const seconds = Math.floor((expiresAt - now) / 1000);
  if (seconds < 1) return undefined;
  return getSignedUrl(s3(), new GetObjectCommand({ Bucket: bucket(), Key: key }), { expiresIn: seconds });
}
