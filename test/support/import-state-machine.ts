import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { StateMachine } from 'aws-local-stepfunctions';
import { STAGES } from '../../lib/config.ts';
import { IMPORT_STATES, ImportJob } from '../../lib/import-job.ts';
import { synthesizedDefinition } from './learning-state-machine.ts';

type Json = Record<string, unknown>;

/** The import state machine as `cdk synth` writes it (lib/import-job.ts), references as placeholders. */
function synthesizedImportDefinition(): Json {
  return synthesizedDefinition('Import', (stack, table) => {
    new ImportJob(stack, 'Job', {
      config: STAGES.sandbox,
      table,
      bucket: new Bucket(stack, 'Imports'),
      alarmTopic: new Topic(stack, 'Alarms'),
    });
  });
}

/**
 * Runs the synthesized import state machine started as an upload starts it (`{ key }`), its slice
 * state running `slice` (the function's handler, locally) with retries at once. Answers the
 * execution's end and how many times the slice ran.
 */
export async function runImportLocally(key: string, slice: (input: unknown) => Promise<unknown>) {
  let slices = 0;
  const machine = new StateMachine(synthesizedImportDefinition() as never, {
    validationOptions: { checkArn: false, checkPaths: false },
  });
  const execution = machine.run(
    { key },
    {
      overrides: {
        taskResourceLocalHandlers: {
          [IMPORT_STATES.slice]: async (input) => {
            slices++;
            return (await slice(input)) as never;
          },
        },
        retryIntervalOverrides: { [IMPORT_STATES.slice]: 0 },
      },
    },
  );
  try {
    return { ended: 'succeeded' as const, output: (await execution.result) as Json, slices };
  } catch (error) {
    // The failing state's error (a Fail state's Error and Cause), as the execution ended with it.
    return { ended: 'failed' as const, error: ((error as Error).cause ?? error) as Error, slices };
  }
}
