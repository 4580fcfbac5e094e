import { endpointHandler } from '../shared/http/http-handler.ts';
import { disputeRequestSchema } from '../shared/schemas/dispute.ts';
import { recordDisputes } from '../shared/use-cases/record-disputes.ts';

export const handler = endpointHandler('dispute', disputeRequestSchema, recordDisputes);
