import { randomUUID } from 'node:crypto';
import { CopyObjectCommand } from '@aws-sdk/client-s3';
import { exportsBucket, exportsClient } from '../privacy/exports-bucket.ts';
import { objectKeys } from '../s3-client.ts';
import { type AthenaSettings, runOnAthena } from './athena-runner.ts';
import { EXPORT_CONTENT_TYPES, exportQuery, type LakeExportWriter, lakeExportPrefix } from './lake-export.ts';

/**
 * A bulk export's kind on Athena. Parquet: UNLOAD writes the rows straight under the kind's prefix
 * in the exports bucket (as many files as Athena's workers make, none when there are no rows), in a
 * folder of this attempt's own: UNLOAD refuses a location that holds anything, and a failed attempt
 * may have left files (they expire with the bucket's rule; only this attempt's are recorded). CSV:
 * UNLOAD's text format has neither header nor quoting, so the query runs as a SELECT, whose result
 * Athena writes as a proper CSV file in the workgroup's output location, copied to the export.
 */
const SAFE_PREFIX = /^[A-Za-z0-9_/-]+$/;

export function athenaExportWriter(settings: AthenaSettings): LakeExportWriter {
  return async (record, kind) => {
    const { query, values } = exportQuery(record, kind);
    const prefix = lakeExportPrefix(record);
    if (record.format === 'parquet') {
      const folder = `${prefix}${kind}/${randomUUID()}/`;
      // The only text spliced into the statement: ids the service made, checked all the same.
      if (!SAFE_PREFIX.test(folder)) throw new Error(`unexpected export prefix ${folder}`);
      await runOnAthena(
        `UNLOAD (${query.text}) TO 's3://${exportsBucket()}/${folder}' WITH (format = 'PARQUET', compression = 'SNAPPY')`,
        values,
        settings,
        `${query.name}.sql (${kind}, UNLOAD)`,
      );
      return objectKeys(exportsClient(), exportsBucket(), folder);
    }
    const execution = await runOnAthena(query.text, values, settings, `${query.name}.sql (${kind})`);
    const output = execution.ResultConfiguration?.OutputLocation;
    if (!output) throw new Error(`Athena named no output for ${kind}`);
    const key = `${prefix}${kind}.csv`;
    await exportsClient().send(
      new CopyObjectCommand({
        Bucket: exportsBucket(),
        Key: key,
        CopySource: encodeURI(output.replace(/^s3:\/\//, '')),
        ContentType: EXPORT_CONTENT_TYPES.csv,
        MetadataDirective: 'REPLACE',
      }),
    );
    return [key];
  };
}
