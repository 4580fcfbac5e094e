import { httpHandler } from '../shared/http/http-handler.ts';
import { accountRequestSchema } from '../shared/schemas/account.ts';
import { evaluateAccountUpdate } from '../shared/use-cases/evaluate-account-update.ts';

export const handler = httpHandler(
  {
    endpoint: 'account',
    schema: accountRequestSchema,
    requiredFeature: 'accountUpdates',
    idempotencyKeyHeader: true,
  },
  evaluateAccountUpdate,
);
