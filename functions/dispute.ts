import { endpointHandler } from '../shared/http/http-handler.ts';
import { recordDisputes } from '../shared/use-cases/record-disputes.ts';

export const handler = endpointHandler('dispute', recordDisputes);
