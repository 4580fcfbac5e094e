import { endpointHandler } from '../shared/http/http-handler.ts';
import { accountRequestSchema } from '../shared/schemas/account.ts';
import { evaluateAccountUpdate } from '../shared/use-cases/evaluate-account-update.ts';

export const handler = endpointHandler('account', accountRequestSchema, evaluateAccountUpdate);
