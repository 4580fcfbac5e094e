import { endpointHandler } from '../shared/http/http-handler.ts';
import { recordDispositions } from '../shared/use-cases/record-dispositions.ts';

export const handler = endpointHandler('disposition', recordDispositions);
