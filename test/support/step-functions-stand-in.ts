import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Just enough of the Step Functions API (JSON 1.0: StartExecution, DescribeExecution) for a CLI
 * pointed at it with AWS_ENDPOINT_URL_SFN: each execution runs `run` (a synthesized state machine
 * run locally, say) with its input, and is RUNNING until that settles. Requests must be SigV4-signed.
 */
export interface StepFunctionsStandIn {
  endpoint: string;
  /** Each execution started: its state machine, name and input. */
  readonly started: { stateMachineArn: string; name: string; input: unknown }[];
  close(): Promise<void>;
}

interface Execution {
  status: 'RUNNING' | 'SUCCEEDED' | 'FAILED';
  output?: string;
  error?: string;
}

export async function startStepFunctionsStandIn(
  run: (input: unknown) => Promise<unknown>,
): Promise<StepFunctionsStandIn> {
  const executions = new Map<string, Execution>();
  const started: StepFunctionsStandIn['started'] = [];
  const server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      const answer = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
        response.end(JSON.stringify(body));
      };
      if (!String(request.headers.authorization).startsWith('AWS4-HMAC-SHA256 '))
        return answer(400, { __type: 'MissingAuthenticationToken', message: 'Unsigned request' });
      const body = JSON.parse(Buffer.concat(parts).toString('utf8') || '{}') as Record<string, string>;
      const action = String(request.headers['x-amz-target']).replace('AWSStepFunctions.', '');
      if (action === 'StartExecution') {
        const executionArn = `${body.stateMachineArn?.replace(':stateMachine:', ':execution:')}:${body.name}`;
        const input = JSON.parse(body.input ?? '{}') as unknown;
        started.push({ stateMachineArn: String(body.stateMachineArn), name: String(body.name), input });
        const execution: Execution = { status: 'RUNNING' };
        executions.set(executionArn, execution);
        run(input).then(
          (output) => Object.assign(execution, { status: 'SUCCEEDED', output: JSON.stringify(output) }),
          (error: Error) => Object.assign(execution, { status: 'FAILED', error: error.message }),
        );
        return answer(200, { executionArn, startDate: Date.now() / 1000 });
      }
      if (action === 'DescribeExecution') {
        const execution = executions.get(String(body.executionArn));
        if (!execution) return answer(400, { __type: 'ExecutionDoesNotExist', message: 'No such execution' });
        return answer(200, {
          executionArn: body.executionArn,
          stateMachineArn: 'arn:aws:states:us-east-1:123456789012:stateMachine:stand-in',
          startDate: Date.now() / 1000,
          status: execution.status,
          ...(execution.output ? { output: execution.output } : {}),
          ...(execution.error ? { error: 'States.TaskFailed', cause: execution.error } : {}),
        });
      }
      return answer(400, { __type: 'UnknownOperationException', message: action });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    started,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
