import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';

/** The one set of Powertools instances; every module imports these rather than building its own. */
export const SERVICE_NAME = 'abuse-decision';

export const logger = new Logger({ serviceName: SERVICE_NAME });
export const metrics = new Metrics({ serviceName: SERVICE_NAME, namespace: 'AbuseDecision' });
