import { httpHandler } from '../shared/http/http-handler.ts';
import { dispositionRequestSchema } from '../shared/schemas/disposition.ts';
import { recordDispositions } from '../shared/use-cases/record-dispositions.ts';

export const handler = httpHandler(
  { endpoint: 'disposition', schema: dispositionRequestSchema, idempotencyKeyHeader: true },
  recordDispositions,
);
