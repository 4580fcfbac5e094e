import { setTimeout as sleep } from 'node:timers/promises';
import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import type { EventType } from '../shared/contract/endpoints.ts';
import type { LearningRunOutput } from '../shared/use-cases/learning-run.ts';
import { CommandError } from './command.ts';

/**
 * `models train` against a stage (LEARNING_STATE_MACHINE_ARN, the Lake stack's output): the training
 * runs where the nightly run does, as one execution of the learning state machine for one merchant
 * and type (lib/learning-stack.ts), never in the workstation's process over the whole lake. The CLI
 * starts it, says how it stands until it ends, and answers its output.
 */
export const learningStateMachineArn = () => process.env.LEARNING_STATE_MACHINE_ARN || undefined;

const POLL_MS = Number(process.env.LEARNING_POLL_MS ?? 5_000);

export async function trainInStage(
  stateMachineArn: string,
  request: { merchantId: string; eventType: EventType; promote?: boolean },
  onProgress: (line: string) => void,
): Promise<{ executionArn: string; output: LearningRunOutput }> {
  const client = new SFNClient({});
  const started = Date.now();
  const { executionArn } = await client.send(
    new StartExecutionCommand({
      stateMachineArn,
      // Unique per request; the console shows who asked for what.
      name: `cli-${request.merchantId}-${request.eventType}-${started}`.slice(0, 80),
      input: JSON.stringify(request),
    }),
  );
  if (!executionArn) throw new CommandError('Step Functions started no execution');
  for (;;) {
    const execution = await client.send(new DescribeExecutionCommand({ executionArn }));
    const seconds = Math.round((Date.now() - started) / 1000);
    onProgress(`training ${request.merchantId}/${request.eventType}: ${execution.status} after ${seconds} s`);
    if (execution.status === 'SUCCEEDED')
      return { executionArn, output: JSON.parse(execution.output ?? '{}') as LearningRunOutput };
    if (execution.status !== 'RUNNING' && execution.status !== 'PENDING_REDRIVE')
      throw new CommandError(
        `training ${execution.status?.toLowerCase()}: ${execution.error ?? ''} ${execution.cause ?? ''}`.trim() +
          ` (execution ${executionArn})`,
      );
    await sleep(POLL_MS);
  }
}
