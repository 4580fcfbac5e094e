import { endpointHandler } from '../shared/http/http-handler.ts';
import { evaluateLogin } from '../shared/use-cases/evaluate-login.ts';

export const handler = endpointHandler('login', evaluateLogin);
