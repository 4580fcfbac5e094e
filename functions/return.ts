import { httpHandler } from '../shared/http/http-handler.ts';
import { returnRequestSchema } from '../shared/schemas/return.ts';
import { evaluateReturn } from '../shared/use-cases/evaluate-return.ts';

export const handler = httpHandler({ endpoint: 'return', schema: returnRequestSchema }, evaluateReturn);
