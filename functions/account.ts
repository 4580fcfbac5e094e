import { endpointHandler } from '../shared/http/http-handler.ts';
import { evaluateAccountUpdate } from '../shared/use-cases/evaluate-account-update.ts';

export const handler = endpointHandler('account', evaluateAccountUpdate);
