import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';

/**
 * The one set of Powertools instances; every module imports these rather than building its own.
 * No Powertools Tracer: Lambda's active tracing records each invocation's segment without it, and
 * the X-Ray SDK it loads (with semver and cls-hooked's async hooks) cost about 130 KB of bundle and
 * a third of the cold import (README, Cold start); per-call DynamoDB subsegments are what is given up.
 */
export const SERVICE_NAME = 'abuse-decision';

export const logger = new Logger({ serviceName: SERVICE_NAME });
export const metrics = new Metrics({ serviceName: SERVICE_NAME, namespace: 'AbuseDecision' });
