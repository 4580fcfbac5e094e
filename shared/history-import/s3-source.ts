import { GetObjectCommand, type S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { type HistorySource, ImportRefusedError } from './import-history.ts';

/** A history file stored as one S3 object, read whole (one GetObject). */
export function s3HistoryObject(client: S3Client, bucket: string, key: string): HistorySource {
  const name = `s3://${bucket}/${key}`;
  return {
    name,
    readText: async () => {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        if (!object.Body) throw new ImportRefusedError(`cannot read ${name}: the object has no body`);
        return await object.Body.transformToString('utf-8');
      } catch (error) {
        // A missing key or a refused read is the caller's to fix; anything else is a failure.
        if (error instanceof S3ServiceException && error.$fault === 'client') {
          throw new ImportRefusedError(`cannot read ${name}: ${error.name}: ${error.message}`, [], {
            cause: error,
          });
        }
        throw error;
      }
    },
  };
}
