import type { ManagementUseCase } from '../http/management-handler.ts';
import { changeDecisionSettings, decisionSettingsState } from '../use-cases/decision-settings.ts';
import { tradeoffReport } from '../use-cases/tradeoff-report.ts';
import { eventTypeOf } from './path-types.ts';

/** The console's decision settings and trade-off endpoints: the use cases the admin CLI's `settings` runs. */
export const showSettings: ManagementUseCase<'settingsShow'> = async ({ caller, pathParameters }) => ({
  body: await decisionSettingsState(caller.merchantId, eventTypeOf(pathParameters), Date.now()),
});

/** PUT /v1/settings/{type}: the settings, the guard for their budget and the audit entry at once. */
export const saveSettings: ManagementUseCase<'settingsSave'> = async ({ caller, pathParameters, body }) => ({
  body: await changeDecisionSettings({
    merchantId: caller.merchantId,
    eventType: eventTypeOf(pathParameters),
    requested: body,
    by: { keyId: caller.keyId, keyName: caller.keyName },
    now: Date.now(),
  }),
});

export const showTradeoffs: ManagementUseCase<'tradeoffsShow'> = async ({ caller, pathParameters }) => ({
  body: await tradeoffReport(caller.merchantId, eventTypeOf(pathParameters), Date.now()),
});
