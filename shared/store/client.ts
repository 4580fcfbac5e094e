import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { readRuntimeConfig } from '../config.ts';
import { tracer } from '../observability.ts';

/**
 * One DynamoDB client per process, built at module scope so warm invocations reuse its connections.
 * Locally DYNAMODB_ENDPOINT points it at DynamoDB Local, with dummy credentials when none are set.
 */
const config = readRuntimeConfig();

const localCredentials = config.dynamoDbEndpoint
  ? {
      accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? 'local',
      secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? 'local',
    }
  : undefined;

export const dynamoDbClient: DynamoDBClient = tracer.captureAWSv3Client(
  new DynamoDBClient({
    region: config.region,
    ...(config.dynamoDbEndpoint ? { endpoint: config.dynamoDbEndpoint, credentials: localCredentials } : {}),
  }),
);

export const documentClient = DynamoDBDocumentClient.from(dynamoDbClient, {
  marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
});

export const tableName = config.tableName;
