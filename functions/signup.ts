import { endpointHandler } from '../shared/http/http-handler.ts';
import { signupRequestSchema } from '../shared/schemas/signup.ts';
import { evaluateSignup } from '../shared/use-cases/evaluate-signup.ts';

export const handler = endpointHandler('signup', signupRequestSchema, evaluateSignup);
