import type { EventType, Holds, SameKeys } from '../contract/endpoints.ts';
import { ApiError } from '../errors.ts';
import type { DecisionSettingsRequest, DecisionSettingValues } from '../schemas/decision-settings.ts';
import {
  DEFAULT_SETTINGS,
  type DecisionSettings,
  type SettingName,
  settingNamesOf,
  settingsFor,
} from '../scoring/decision-settings.ts';
import { floorsFor } from '../scoring/decision-thresholds.ts';
import { ALLOWED_OUTCOMES } from '../scoring/workflow.ts';
import { auditPut } from '../store/audit.ts';
import {
  type DecisionSettingsRecord,
  getDecisionSettings,
  reviewsOpenedToday,
  saveDecisionSettings,
} from '../store/decision-settings.ts';
import {
  type GuardInForce,
  guardExplanation,
  guardFromLabeledHistory,
  guardInForce,
  liveModelOf,
} from './decision-economics.ts';

/** @public The API's schemas name exactly the settings scoring knows (tsc fails otherwise). */
export type RequestNamesEverySetting = Holds<SameKeys<DecisionSettingsRequest, DecisionSettings>>;
/** @public */
export type AnswerNamesEverySetting = Holds<SameKeys<DecisionSettingValues, DecisionSettings>>;

/**
 * A merchant's decision settings per event type, as the console and the admin CLI show and change
 * them: the settings in force beside the defaults, the good-customer guard in force and where its
 * floors come from, and the reviews opened today against the capacity.
 */
export interface SettingsState {
  eventType: EventType;
  settings: DecisionSettings;
  defaults: DecisionSettings;
  customized: SettingName[];
  guard: GuardInForce & { explanation: string };
  reviews?: { today: number; capacityPerDay: number; capacityLeft: boolean };
  updatedAt?: string;
  updatedBy?: string;
}

export async function decisionSettingsState(
  merchantId: string,
  eventType: EventType,
  now: number,
  read?: DecisionSettingsRecord,
): Promise<SettingsState> {
  const canReview = ALLOWED_OUTCOMES[eventType].includes('REVIEW');
  const [record, model, today] = await Promise.all([
    read ?? getDecisionSettings(merchantId, eventType),
    liveModelOf(merchantId, eventType),
    canReview ? reviewsOpenedToday(merchantId, eventType, now) : undefined,
  ]);
  const guard = guardInForce(record.settings, model, record.guard);
  return {
    eventType,
    settings: record.settings,
    defaults: DEFAULT_SETTINGS[eventType],
    customized: settingNamesOf(eventType).filter((name) => record.stored[name] !== undefined),
    guard: { ...guard, explanation: guardExplanation(guard) },
    ...(today !== undefined
      ? {
          reviews: {
            today,
            capacityPerDay: record.settings.reviewCapacityPerDay,
            capacityLeft: today < record.settings.reviewCapacityPerDay,
          },
        }
      : {}),
    ...(record.updatedAt ? { updatedAt: record.updatedAt } : {}),
    ...(record.updatedBy ? { updatedBy: record.updatedBy } : {}),
  };
}

/** Who changes the settings: a console key's holder, or the admin CLI. */
export interface SettingsEditor {
  keyId: string;
  keyName: string;
}

/**
 * Replaces what the merchant set for the event type (a setting left out takes its default). The
 * guard is computed again when the budget changed (or none applies to the live model), and saved
 * with the settings and the audit entry in one transaction. A setting of another event type is
 * 422 `unknown_field` naming it; nothing is written.
 */
export async function changeDecisionSettings(input: {
  merchantId: string;
  eventType: EventType;
  requested: DecisionSettingsRequest;
  by: SettingsEditor;
  now: number;
}): Promise<SettingsState> {
  const { merchantId, eventType, requested, by, now } = input;
  const own = new Set<string>(settingNamesOf(eventType));
  const stored: Partial<DecisionSettings> = {};
  for (const [name, value] of Object.entries(requested)) {
    if (value === undefined) continue;
    if (!own.has(name))
      throw new ApiError('unknown_field', `${name} is not a setting of ${eventType} events.`, {
        field: name,
      });
    stored[name as SettingName] = value;
  }
  const settings = settingsFor(eventType, stored);
  const [current, model] = await Promise.all([
    getDecisionSettings(merchantId, eventType),
    liveModelOf(merchantId, eventType),
  ]);
  const guard =
    current.guard && floorsFor(model, settings, current.guard) === current.guard
      ? current.guard
      : await guardFromLabeledHistory(merchantId, eventType, settings, model, now);
  const at = new Date(now).toISOString();
  await saveDecisionSettings(merchantId, eventType, { stored, guard, updatedBy: by.keyName, now }, [
    auditPut(merchantId, {
      at,
      action: 'settings.saved',
      keyId: by.keyId,
      keyName: by.keyName,
      subject: `${eventType} decision settings`,
      detail: changesInWords(current.settings, settings, eventType),
    }),
  ]);
  return decisionSettingsState(merchantId, eventType, now, {
    stored,
    settings,
    guard,
    updatedAt: at,
    updatedBy: by.keyName,
  });
}

/** "grossMargin 0.3 -> 0.25, chargebackFee 15 -> 20", or that nothing changed. */
function changesInWords(before: DecisionSettings, after: DecisionSettings, eventType: EventType): string {
  const changed = settingNamesOf(eventType)
    .filter((name) => before[name] !== after[name])
    .map((name) => `${name} ${before[name]} -> ${after[name]}`);
  return changed.length > 0 ? changed.join(', ') : 'saved unchanged';
}
