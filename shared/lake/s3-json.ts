import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

/** Where a step of a state machine leaves its output for the next: a reference, not the data. */
export interface S3Ref {
  bucket: string;
  key: string;
}

const s3 = new S3Client({});

export async function putJson(ref: S3Ref, value: unknown): Promise<void> {
  await s3.send(
    new PutObjectCommand({
      Bucket: ref.bucket,
      Key: ref.key,
      Body: JSON.stringify(value),
      ContentType: 'application/json',
    }),
  );
}

export async function getJson<T>(ref: S3Ref): Promise<T> {
  const { Body } = await s3.send(new GetObjectCommand({ Bucket: ref.bucket, Key: ref.key }));
  return JSON.parse((await Body?.transformToString()) ?? 'null') as T;
}
