import { EVENT_TYPES, type EventType } from '../../shared/contract/endpoints.ts';
import { toApiError } from '../../shared/http/validation.ts';
import { decisionSettingsRequestSchema } from '../../shared/schemas/decision-settings.ts';
import { type SettingName, settingNamesOf } from '../../shared/scoring/decision-settings.ts';
import { getDecisionSettings } from '../../shared/store/decision-settings.ts';
import { changeDecisionSettings, decisionSettingsState } from '../../shared/use-cases/decision-settings.ts';
import { type AdminCommand, UsageError } from '../command.ts';
import { ADMIN_CLI, requireMerchant, requireType } from '../targets.ts';

type Flags = Record<string, string | boolean | undefined>;

const TYPES = EVENT_TYPES.join('|');
const ALL_SETTINGS = [...new Set(EVENT_TYPES.flatMap(settingNamesOf))];
/** `grossMargin` <-> `--gross-margin`. */
const flagOf = (name: SettingName) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/**
 * A merchant's decision settings per event type (the console's trade-off page changes the same
 * ones): `settings show`, and `settings set` with one flag per setting to change; the others keep
 * their values, `--reset` takes every one back to its default. Changes are audited as `admin`.
 */
export const settingsCommands: AdminCommand[] = [
  {
    words: ['settings', 'show'],
    usage: `settings show --merchant ID --type ${TYPES}`,
    options: { merchant: { type: 'string' }, type: { type: 'string' } },
    run: async (flags) => {
      const eventType = requireType(flags);
      const merchantId = await requireMerchant(flags);
      return { merchantId, ...(await decisionSettingsState(merchantId, eventType, Date.now())) };
    },
  },
  {
    words: ['settings', 'set'],
    usage: `settings set --merchant ID --type ${TYPES} [--reset] ${ALL_SETTINGS.map((n) => `[--${flagOf(n)} N]`).join(' ')}`,
    options: {
      merchant: { type: 'string' },
      type: { type: 'string' },
      reset: { type: 'boolean' },
      ...Object.fromEntries(ALL_SETTINGS.map((name) => [flagOf(name), { type: 'string' as const }])),
    },
    run: async (flags) => {
      const eventType = requireType(flags);
      const changes = settingFlags(flags, eventType);
      if (Object.keys(changes).length === 0 && flags.reset !== true)
        throw new UsageError('nothing to set: give a setting or --reset');
      const merchantId = await requireMerchant(flags);
      const current = flags.reset === true ? {} : (await getDecisionSettings(merchantId, eventType)).stored;
      const result = decisionSettingsRequestSchema.safeParse({ ...current, ...changes });
      if (!result.success) {
        const problem = toApiError(result.error.issues);
        throw new UsageError(`--${flagOf((problem.field ?? '') as SettingName)}: ${problem.message}`);
      }
      const state = await changeDecisionSettings({
        merchantId,
        eventType,
        requested: result.data,
        by: ADMIN_CLI,
        now: Date.now(),
      });
      return { merchantId, saved: true, ...state };
    },
  },
];

/** The settings given as flags, as numbers; a setting of another event type is a usage error. */
function settingFlags(flags: Flags, eventType: EventType): Partial<Record<SettingName, number>> {
  const own = settingNamesOf(eventType);
  const changes: Partial<Record<SettingName, number>> = {};
  for (const name of ALL_SETTINGS) {
    const value = flags[flagOf(name)];
    if (typeof value !== 'string') continue;
    if (!own.includes(name))
      throw new UsageError(`--${flagOf(name)} is not a setting of ${eventType} events`);
    const number = Number(value);
    if (value.trim() === '' || !Number.isFinite(number))
      throw new UsageError(`--${flagOf(name)} must be a number`);
    changes[name] = number;
  }
  return changes;
}
