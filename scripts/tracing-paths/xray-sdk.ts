import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';

/**
 * The X-Ray SDK path, for `npm run bench -- tracing`: the Powertools Tracer (which wraps the X-Ray
 * SDK) around the handler and every AWS client, with the same exports as shared/tracing.ts.
 */
const tracer = new Tracer({ serviceName: 'abuse-decision' });

export const invocationTracing = () => captureLambdaHandler(tracer, { captureResponse: false });

export const traceAwsClient = <C extends object>(client: C): C => tracer.captureAWSv3Client(client);
