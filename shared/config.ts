/** Runtime configuration read once from the environment (Lambda env vars, or the local server's). */
export type Environment = 'sandbox' | 'production';

export const KEY_PREFIX: Record<Environment, string> = { sandbox: 'pk_test_', production: 'pk_live_' };

export interface RuntimeConfig {
  tableName: string;
  environment: Environment;
  /** Set only locally: the DynamoDB Local endpoint. In AWS the SDK's default endpoint is used. */
  dynamoDbEndpoint: string | undefined;
  region: string;
}

export function readRuntimeConfig(env: NodeJS.ProcessEnv = process.env): RuntimeConfig {
  const environment = env.ENVIRONMENT ?? 'sandbox';
  if (environment !== 'sandbox' && environment !== 'production') {
    throw new Error(`ENVIRONMENT must be "sandbox" or "production", got "${environment}"`);
  }
  return {
    tableName: env.TABLE_NAME ?? 'abuse-decision-local',
    environment,
    dynamoDbEndpoint: env.DYNAMODB_ENDPOINT || undefined,
    region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
  };
}
