import { notFound } from '../errors.ts';
import type { ManagementUseCase } from '../http/management-handler.ts';
import { getBacktest } from '../store/backtests.ts';
import { backtestView, requestBacktest } from '../use-cases/backtests.ts';
import { validOrThrow } from './workflows.ts';

/** POST /v1/backtests: a valid candidate is accepted at once (202) and run by the backtest job. */
export const createBacktest: ManagementUseCase<'backtestCreate'> = async ({ caller, body }) => {
  const candidate = validOrThrow(body.eventType, body.workflow, 'candidate');
  const record = await requestBacktest(caller.merchantId, body, candidate, Date.now());
  return { body: backtestView(record), headers: { Location: `/v1/backtests/${record.backtestId}` } };
};

/** GET /v1/backtests/{backtest-id} */
export const showBacktest: ManagementUseCase<'backtestShow'> = async ({ caller, pathParameters }) => {
  const record = await getBacktest(caller.merchantId, pathParameters['backtest-id'] ?? '');
  if (!record) throw notFound('No backtest with this id.');
  return { body: backtestView(record) };
};
