import { endpointHandler } from '../shared/http/http-handler.ts';
import { evaluateSignup } from '../shared/use-cases/evaluate-signup.ts';

export const handler = endpointHandler('signup', evaluateSignup);
