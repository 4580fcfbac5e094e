import { endpointHandler } from '../shared/http/http-handler.ts';
import { evaluateReturn } from '../shared/use-cases/evaluate-return.ts';

export const handler = endpointHandler('return', evaluateReturn);
