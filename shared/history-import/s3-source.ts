import { GetObjectCommand, HeadObjectCommand, type S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { type HistorySource, ImportRefusedError } from './import-history.ts';

/**
 * A history file stored as one S3 object, read as a stream: a ranged GetObject from the byte where
 * a run starts, so a run holds one line at a time whatever the object's size.
 */
export function s3HistoryObject(client: S3Client, bucket: string, key: string): HistorySource {
  const name = `s3://${bucket}/${key}`;
  return {
    name,
    describe: async () => {
      const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key })).catch(refuse);
      return { bytes: head.ContentLength ?? 0, version: head.ETag ?? '' };
    },
    read: async (fromByte) => {
      const object = await client
        .send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: `bytes=${fromByte}-` }))
        .catch(refuse);
      if (!object.Body) throw new ImportRefusedError(`cannot read ${name}: the object has no body`);
      return object.Body as AsyncIterable<Uint8Array>;
    },
  };

  function refuse(error: unknown): never {
    // A missing key or a refused read is the caller's to fix; anything else is a failure.
    if (error instanceof S3ServiceException && error.$fault === 'client') {
      throw new ImportRefusedError(`cannot read ${name}: ${s3ErrorText(error)}`, [], { cause: error });
    }
    throw error;
  }
}

/** A HEAD answer carries no body: S3 tells a missing key by its status alone. */
const s3ErrorText = (error: S3ServiceException) =>
  error.$metadata.httpStatusCode === 404
    ? 'NoSuchKey: The specified key does not exist.'
    : `${error.name}: ${error.message}`;
