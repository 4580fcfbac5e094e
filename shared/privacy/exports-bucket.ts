import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { bucketClient } from '../s3-client.ts';

/**
 * Exports in their private bucket (EXPORTS_BUCKET), under the merchant's prefix: a privacy request's
 * document, a bulk export's files (shared/lake/lake-export.ts); an object expires with the bucket's
 * lifecycle rule and its link sooner.
 * Locally and in tests S3_ENDPOINT points the client at an S3-compatible stand-in.
 */
export const EXPORT_LINK_SECONDS = 7 * 86_400;

/**
 * How long one signed link works. A link signed with a Lambda role's temporary credentials stops
 * working when they expire (hours, whatever its own expiry says), so each GET signs a fresh, short
 * link, and a caller asks again for another until the export itself expires.
 */
const LINK_SIGNATURE_SECONDS = 15 * 60;

export const exportsBucket = () => {
  const name = process.env.EXPORTS_BUCKET;
  if (!name) throw new Error('EXPORTS_BUCKET is not set');
  return name;
};

let client: ReturnType<typeof bucketClient> | undefined;
export const exportsClient = () => {
  client ??= bucketClient();
  return client;
};

export const exportObjectKey = (merchantId: string, requestId: string) =>
  `${merchantId}/privacy/${requestId}.json`;

/** Every key exportObjectKey makes, as an IAM resource pattern (the worker may write these only). */
export const EXPORTS_PREFIX_PATTERN = '*/privacy/*';

export async function writeExport(
  key: string,
  body: string | Uint8Array,
  contentType = 'application/json',
): Promise<void> {
  await exportsClient().send(
    new PutObjectCommand({ Bucket: exportsBucket(), Key: key, Body: body, ContentType: contentType }),
  );
}

/**
 * A GET link to the export, valid for LINK_SIGNATURE_SECONDS and never past `expiresAt` (epoch
 * ms); none once that has passed.
 */
export async function exportLink(key: string, expiresAt: number, now: number): Promise<string | undefined> {
  const seconds = Math.min(LINK_SIGNATURE_SECONDS, Math.floor((expiresAt - now) / 1000));
  if (seconds < 1) return undefined;
  return getSignedUrl(exportsClient(), new GetObjectCommand({ Bucket: exportsBucket(), Key: key }), {
    expiresIn: seconds,
  });
}
