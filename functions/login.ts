import { endpointHandler } from '../shared/http/http-handler.ts';
import { loginRequestSchema } from '../shared/schemas/login.ts';
import { evaluateLogin } from '../shared/use-cases/evaluate-login.ts';

export const handler = endpointHandler('login', loginRequestSchema, evaluateLogin);
