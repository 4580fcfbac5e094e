import { join } from 'node:path';

/**
 * Environment for running the handlers outside Lambda. Must be applied before any shared/ module is
 * imported, because the DynamoDB client and config are built at module scope.
 */
export const LOCAL_TABLE_NAME = 'abuse-decision-local';

export function applyLocalEnvironment(
  dynamoDbEndpoint: string,
  overrides: Record<string, string> = {},
): void {
  const defaults: Record<string, string> = {
    DYNAMODB_ENDPOINT: dynamoDbEndpoint,
    TABLE_NAME: LOCAL_TABLE_NAME,
    ENVIRONMENT: 'sandbox',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    POWERTOOLS_SERVICE_NAME: 'abuse-decision',
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN',
    // The local stand-in for the environment's KMS key (shared/webhooks/file-data-keys.ts): one per
    // checkout, like an account's key, so `npm start` (whatever its DATA_DIR), the admin CLI and the
    // tests seal and open with the same one.
    WEBHOOK_SECRETS_KEY_FILE: join(import.meta.dirname, '..', '.data', 'webhook-secrets.key'),
  };
  for (const [name, value] of Object.entries({ ...defaults, ...overrides })) {
    if (
      name === 'DYNAMODB_ENDPOINT' ||
      name === 'TABLE_NAME' ||
      process.env[name] === undefined ||
      name in overrides
    ) {
      process.env[name] = value;
    }
  }
}
