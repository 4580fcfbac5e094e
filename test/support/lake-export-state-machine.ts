import { GetItemCommand, type GetItemCommandInput } from '@aws-sdk/client-dynamodb';
import type { DuckDBConnection } from '@duckdb/node-api';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { StateMachine } from 'aws-local-stepfunctions';
import { handler as recordOutcome } from '../../functions/lake-export-outcome.ts';
import { STAGES } from '../../lib/config.ts';
import { LAKE_EXPORT_STATES, LakeExportJob } from '../../lib/lake-export-job.ts';
import { duckDbExportWriter } from '../../shared/lake/lake-export.ts';
import type { LakeExportKind } from '../../shared/schemas/lake-export.ts';
import { dynamoDbClient, tableName } from '../../shared/store/client.ts';
import { lakeExportKeys } from '../../shared/store/keys.ts';
import type { LakeExport } from '../../shared/store/lake-exports.ts';
import { exportKind } from '../../shared/use-cases/lake-exports.ts';
import { jobStarts, placeholderLake, synthesizedDefinition } from './learning-state-machine.ts';

type Json = Record<string, unknown>;

/** The export state machine as `cdk synth` writes it (lib/lake-export-job.ts), references as placeholders. */
export function synthesizedExportDefinition(): Json {
  return synthesizedDefinition('Export', (stack, table) => {
    const alarmTopic = new Topic(stack, 'Alarms');
    new LakeExportJob(stack, 'Export', {
      config: STAGES.sandbox,
      table,
      starts: jobStarts(stack, alarmTopic),
      lake: placeholderLake(stack),
      exportsBucket: { bucket: new Bucket(stack, 'Exports'), arnExport: 'exports-arn' },
      alarmTopic,
    });
  });
}

/**
 * Runs the synthesized export state machine with local handlers, started with what its rule sends
 * (the export item's merchant, id and its keys as DynamoDB types them): its read of the kinds sent
 * to DynamoDB Local as the state's parameters say, each kind on DuckDB where Athena runs it in AWS,
 * the outcome step's own handler. `fail` makes a kind's step throw every time.
 * Answers the execution's end and how many times each kind's step ran.
 */
export async function runExportLocally(
  record: LakeExport,
  options: { lake: DuckDBConnection; fail?: (kind: LakeExportKind) => boolean },
) {
  const attempts: Record<string, number> = {};
  const write = duckDbExportWriter(options.lake);
  const machine = new StateMachine(synthesizedExportDefinition() as never, {
    validationOptions: { checkArn: false, checkPaths: false },
  });
  const input = {
    merchantId: record.merchantId,
    exportId: record.exportId,
    keys: Object.fromEntries(
      Object.entries(lakeExportKeys.export(record.merchantId, record.exportId)).map(([name, value]) => [
        name,
        { S: value },
      ]),
    ),
  };
  const execution = machine.run(input, {
    overrides: {
      taskResourceLocalHandlers: {
        // The service integration's call, on the local table (the synthesized name is a placeholder).
        [LAKE_EXPORT_STATES.readKinds]: async (step) =>
          (await dynamoDbClient.send(
            new GetItemCommand({ ...(step as unknown as GetItemCommandInput), TableName: tableName }),
          )) as never,
        [LAKE_EXPORT_STATES.exportKind]: async (step) => {
          const { merchantId, exportId, kind } = step as unknown as {
            merchantId: string;
            exportId: string;
            kind: LakeExportKind;
          };
          attempts[kind] = (attempts[kind] ?? 0) + 1;
          if (options.fail?.(kind)) throw new Error(`Athena query FAILED for ${kind}`);
          return (await exportKind(merchantId, exportId, kind, write)) as never;
        },
        [LAKE_EXPORT_STATES.recordDone]: async (step) => (await recordOutcome(step)) as never,
        [LAKE_EXPORT_STATES.recordFailed]: async (step) => (await recordOutcome(step)) as never,
      },
      retryIntervalOverrides: {
        [LAKE_EXPORT_STATES.readKinds]: 0,
        [LAKE_EXPORT_STATES.exportKind]: 0,
        [LAKE_EXPORT_STATES.recordDone]: 0,
        [LAKE_EXPORT_STATES.recordFailed]: 0,
      },
    },
  });
  try {
    return { ended: 'succeeded' as const, output: await execution.result, attempts };
  } catch (error) {
    return { ended: 'failed' as const, error: (error as Error).name, attempts };
  }
}
