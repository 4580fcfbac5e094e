import { notFound } from '../errors.ts';
import type { ManagementUseCase } from '../http/management-handler.ts';
import { explainDecision } from './explain-decision.ts';
import { eventTypeOf } from './path-types.ts';

/** GET /v1/decisions/{type}/{id}: a decided event by the merchant's id, explained. */
export const showDecision: ManagementUseCase<'decisionShow'> = async ({ caller, pathParameters }) => {
  const eventType = eventTypeOf(pathParameters);
  const id = pathParameters.id ?? '';
  const explanation = await explainDecision(caller.merchantId, eventType, id);
  if (!explanation) throw notFound(`No ${eventType} with id ${id}.`);
  return { body: explanation };
};
