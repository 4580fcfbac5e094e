import type { DuckDBConnection } from '@duckdb/node-api';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { StateMachine } from 'aws-local-stepfunctions';
import { handler as backtestJob } from '../../functions/backtest-job.ts';
import { BACKTEST_STATES, BacktestJob } from '../../lib/backtest-job.ts';
import { STAGES } from '../../lib/config.ts';
import { duckDbRunner } from '../../shared/lake/lake-queries.ts';
import type { Backtest } from '../../shared/store/backtests.ts';
import { backtestStep } from '../../shared/use-cases/backtests.ts';
import { jobStarts, placeholderLake, synthesizedDefinition } from './learning-state-machine.ts';

type Json = Record<string, unknown>;

/** The backtest state machine as `cdk synth` writes it (lib/backtest-job.ts), references as placeholders. */
export function synthesizedBacktestDefinition(): Json {
  return synthesizedDefinition('Backtest', (stack, table) => {
    const alarmTopic = new Topic(stack, 'Alarms');
    new BacktestJob(stack, 'Backtests', {
      config: STAGES.sandbox,
      table,
      starts: jobStarts(stack, alarmTopic),
      lake: placeholderLake(stack),
      alarmTopic,
    });
  });
}

/**
 * Runs the synthesized backtest state machine with local handlers, started with what its rule sends
 * (the item's merchant and id): the step on DuckDB where Athena runs it in AWS, the failure step's own
 * handler. `fail` makes the step throw every time. Answers the execution's end and the step's runs.
 */
export async function runBacktestLocally(
  record: Pick<Backtest, 'merchantId' | 'backtestId'>,
  options: { lake: DuckDBConnection; fail?: boolean },
) {
  let attempts = 0;
  const run = duckDbRunner(options.lake);
  const machine = new StateMachine(synthesizedBacktestDefinition() as never, {
    validationOptions: { checkArn: false, checkPaths: false },
  });
  const execution = machine.run(
    { merchantId: record.merchantId, backtestId: record.backtestId },
    {
      overrides: {
        taskResourceLocalHandlers: {
          [BACKTEST_STATES.backtest]: async (step) => {
            attempts++;
            if (options.fail) throw new Error('Athena query FAILED: the workgroup scan limit');
            const ids = step as unknown as Pick<Backtest, 'merchantId' | 'backtestId'>;
            return { status: await backtestStep(ids, run) } as never;
          },
          [BACKTEST_STATES.recordFailed]: async (step) => (await backtestJob(step)) as never,
        },
        retryIntervalOverrides: { [BACKTEST_STATES.backtest]: 0, [BACKTEST_STATES.recordFailed]: 0 },
      },
    },
  );
  try {
    return { ended: 'succeeded' as const, output: await execution.result, attempts };
  } catch (error) {
    return { ended: 'failed' as const, error: (error as Error).name, attempts };
  }
}
