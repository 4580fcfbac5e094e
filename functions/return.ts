import { endpointHandler } from '../shared/http/http-handler.ts';
import { returnRequestSchema } from '../shared/schemas/return.ts';
import { evaluateReturn } from '../shared/use-cases/evaluate-return.ts';

export const handler = endpointHandler('return', returnRequestSchema, evaluateReturn);
