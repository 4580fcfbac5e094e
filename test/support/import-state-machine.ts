import { randomUUID } from 'node:crypto';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { StateMachine } from 'aws-local-stepfunctions';
import { STAGES } from '../../lib/config.ts';
import { IMPORT_STATES, ImportJob } from '../../lib/import-job.ts';
import { synthesizedDefinition } from './learning-state-machine.ts';

type Json = Record<string, unknown>;

/** The import state machine as `cdk synth` writes it (lib/import-job.ts), references as placeholders. */
function synthesizedImportDefinition(slicesPerExecution?: number): Json {
  return synthesizedDefinition('Import', (stack, table) => {
    new ImportJob(stack, 'Job', {
      config: STAGES.sandbox,
      table,
      bucket: new Bucket(stack, 'Imports'),
      alarmTopic: new Topic(stack, 'Alarms'),
      ...(slicesPerExecution ? { slicesPerExecution } : {}),
    });
  });
}

interface StartedExecution {
  Name: string;
  Input: Json;
}

/**
 * Runs the synthesized import state machine started as an upload starts it (`{ key }`), its slice
 * state running `slice` (the function's handler, locally) with retries at once. An execution that
 * hands the import on (ContinueAsNew) has the next one run here after it, as Step Functions would
 * start it. Answers the last execution's end, the names of the executions it started, and how many
 * times the slice ran in all.
 */
export async function runImportLocally(
  key: string,
  slice: (input: unknown) => Promise<unknown>,
  { slicesPerExecution }: { slicesPerExecution?: number } = {},
) {
  let slices = 0;
  const machine = new StateMachine(synthesizedImportDefinition(slicesPerExecution) as never, {
    validationOptions: { checkArn: false, checkPaths: false },
  });
  const started: string[] = [];
  let input: Json = { key };
  // EventBridge names the execution an upload starts.
  let name: string = randomUUID();
  for (;;) {
    let handedOn: StartedExecution | undefined;
    const execution = machine.run(input as never, {
      context: { Execution: { Name: name } },
      overrides: {
        taskResourceLocalHandlers: {
          [IMPORT_STATES.slice]: async (sliceInput) => {
            slices++;
            return (await slice(sliceInput)) as never;
          },
          [IMPORT_STATES.continueAsNew]: async (request) => {
            handedOn = request as unknown as StartedExecution;
            return { executionArn: `local:${handedOn.Name}` } as never;
          },
        },
        retryIntervalOverrides: { [IMPORT_STATES.slice]: 0 },
      },
    });
    try {
      const output = (await execution.result) as Json;
      if (!handedOn) return { ended: 'succeeded' as const, output, slices, started };
      const next: StartedExecution = handedOn;
      started.push(next.Name);
      name = next.Name;
      input = next.Input;
    } catch (error) {
      // The failing state's error (a Fail state's Error and Cause), as the execution ended with it.
      return { ended: 'failed' as const, error: ((error as Error).cause ?? error) as Error, slices, started };
    }
  }
}
