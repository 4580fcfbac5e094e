import { endpointHandler } from '../shared/http/http-handler.ts';
import { dispositionRequestSchema } from '../shared/schemas/disposition.ts';
import { recordDispositions } from '../shared/use-cases/record-dispositions.ts';

export const handler = endpointHandler('disposition', dispositionRequestSchema, recordDispositions);
