import { localLakeDir } from '../../local/lake-runner.ts';
import { readRuntimeConfig, validRateLimit } from '../../shared/config.ts';
import { ENDPOINTS, KEY_SCOPES, type KeyScope } from '../../shared/contract/endpoints.ts';
import { createDigestKey } from '../../shared/digests/digest-keys.ts';
import {
  createApiKey,
  createMerchant,
  getMerchant,
  revokeApiKey,
  setMerchantStatus,
  updateMerchant,
} from '../../shared/store/merchants.ts';
import { saveMembership } from '../../shared/use-cases/network-membership.ts';
import {
  offboardingStatus,
  requestOffboarding,
  runOffboardingToEnd,
} from '../../shared/use-cases/offboard-merchant.ts';
import {
  type AdminCommand,
  boundedName,
  CommandError,
  positiveInteger,
  requireFlag,
  UsageError,
} from '../command.ts';
import { ADMIN_CLI, adminOperator } from '../targets.ts';

/** Merchants and their API keys. Keys are printed once, here, and stored only as hashes. */
export const merchantCommands: AdminCommand[] = [
  {
    words: ['merchant', 'create'],
    usage: 'merchant create --name NAME [--enable-account-updates]',
    options: { name: { type: 'string' }, 'enable-account-updates': { type: 'boolean' } },
    run: async (flags) => {
      const merchant = await createMerchant({
        name: boundedName(requireFlag(flags, 'name'), 'name'),
        accountUpdatesEnabled: flags['enable-account-updates'] === true,
        environment: readRuntimeConfig().environment,
        by: adminOperator(),
      });
      // Its identity digest key, before its first event needs it (in AWS, a Secrets Manager secret).
      await createDigestKey(merchant.merchantId);
      return { merchantId: merchant.merchantId, keyId: merchant.keyId, apiKey: merchant.apiKey };
    },
  },
  {
    words: ['merchant', 'update'],
    usage:
      'merchant update --merchant ID [--enable-account-updates|--disable-account-updates] [--suspend|--unsuspend] [--auto-promote-models|--no-auto-promote-models] [--rate-limit N [--burst M]] [--network on|off] [--webhook-review-notes on|off]',
    options: {
      merchant: { type: 'string' },
      'enable-account-updates': { type: 'boolean' },
      'disable-account-updates': { type: 'boolean' },
      suspend: { type: 'boolean' },
      unsuspend: { type: 'boolean' },
      'auto-promote-models': { type: 'boolean' },
      'no-auto-promote-models': { type: 'boolean' },
      'rate-limit': { type: 'string' },
      burst: { type: 'string' },
      network: { type: 'string' },
      'webhook-review-notes': { type: 'string' },
    },
    run: async (flags) => {
      const merchantId = requireFlag(flags, 'merchant');
      const enable = flags['enable-account-updates'] === true;
      const disable = flags['disable-account-updates'] === true;
      const suspend = flags.suspend === true;
      const unsuspend = flags.unsuspend === true;
      if (enable && disable)
        throw new UsageError('choose one of --enable-account-updates and --disable-account-updates');
      if (suspend && unsuspend) throw new UsageError('choose one of --suspend and --unsuspend');
      const autoPromote = flags['auto-promote-models'] === true;
      const noAutoPromote = flags['no-auto-promote-models'] === true;
      if (autoPromote && noAutoPromote)
        throw new UsageError('choose one of --auto-promote-models and --no-auto-promote-models');
      const rateLimit = rateLimitFlags(flags);
      const network = onOffFlag(flags, 'network');
      const reviewNotes = onOffFlag(flags, 'webhook-review-notes');
      if (
        !enable &&
        !disable &&
        !suspend &&
        !unsuspend &&
        !autoPromote &&
        !noAutoPromote &&
        !rateLimit &&
        network === undefined &&
        reviewNotes === undefined
      )
        throw new UsageError('nothing to update');
      // Membership is audited and a departure withdraws contributions: its own use case, first.
      if (network !== undefined) {
        if (!(await getMerchant(merchantId))) throw new CommandError(`no merchant ${merchantId}`);
        await saveMembership(merchantId, network, ADMIN_CLI, Date.now());
      }
      // A suspension (and its lifting) is audited with who ran the command.
      if (suspend || unsuspend) {
        const status = suspend ? 'suspended' : 'active';
        if (!(await setMerchantStatus(merchantId, status, adminOperator()))) {
          throw new CommandError(`no merchant ${merchantId}`);
        }
      }
      const merchant = await updateMerchant(merchantId, {
        ...(enable || disable ? { accountUpdatesEnabled: enable } : {}),
        ...(autoPromote || noAutoPromote ? { autoPromoteModels: autoPromote } : {}),
        ...(rateLimit ? { rateLimit } : {}),
        ...(reviewNotes !== undefined ? { webhookReviewNotes: reviewNotes } : {}),
      });
      if (!merchant) throw new CommandError(`no merchant ${merchantId}`);
      return merchant;
    },
  },
  {
    words: ['merchant', 'delete'],
    usage:
      'merchant delete --merchant ID --confirm ID [--segments N] [--no-wait] | merchant delete --status --merchant ID   (offboarding: docs/operations.md)',
    options: {
      merchant: { type: 'string' },
      confirm: { type: 'string' },
      segments: { type: 'string' },
      'no-wait': { type: 'boolean' },
      status: { type: 'boolean' },
    },
    run: async (flags) => {
      const merchantId = requireFlag(flags, 'merchant');
      if (flags.status) {
        const status = await offboardingStatus(merchantId);
        if (!status) throw new CommandError(`no offboarding of ${merchantId}`);
        return status;
      }
      if (flags.confirm !== merchantId) throw new UsageError('--confirm must repeat the merchant id');
      // Refused at once and recorded; the privacy worker runs it (the stream in AWS, the local poller).
      await requestOffboarding(merchantId, adminOperator(), Date.now(), positiveInteger(flags, 'segments'));
      if (flags['no-wait']) return offboardingStatus(merchantId);
      // Waiting, the CLI runs slices too: the lake's bucket where LAKE_BUCKET names it (AWS), else the local lake.
      const lake = process.env.LAKE_BUCKET ? { bucket: process.env.LAKE_BUCKET } : { dir: localLakeDir() };
      return runOffboardingToEnd(merchantId, { lake });
    },
  },
  {
    words: ['key', 'create'],
    usage: `key create --merchant ID [--scope ${KEY_SCOPES.join('|')}] [--name "ana@acme.example"] [--endpoints ${ENDPOINTS.join(',')}] [--expires 2027-06-30|2027-06-30T12:00:00Z]`,
    options: {
      merchant: { type: 'string' },
      scope: { type: 'string' },
      name: { type: 'string' },
      endpoints: { type: 'string' },
      expires: { type: 'string' },
    },
    run: async (flags) => {
      const merchantId = requireFlag(flags, 'merchant');
      const scope = flags.scope ?? 'events';
      if (!KEY_SCOPES.includes(scope as KeyScope)) {
        throw new UsageError(`--scope must be one of ${KEY_SCOPES.join(', ')}`);
      }
      const name = typeof flags.name === 'string' ? boundedName(flags.name.trim(), 'name') : undefined;
      // A console key is one person's: the audit log names who changed what by it.
      if (scope === 'console' && !name) throw new UsageError('a console key needs --name (who holds it)');
      const endpoints = typeof flags.endpoints === 'string' ? parseEndpoints(flags.endpoints) : undefined;
      if (endpoints && scope !== 'events') throw new UsageError('--endpoints goes with --scope events');
      const expiresAt = typeof flags.expires === 'string' ? expiryOf(flags.expires, Date.now()) : undefined;
      const issued = await createApiKey({
        merchantId,
        environment: readRuntimeConfig().environment,
        scope: scope as KeyScope,
        ...(name ? { name } : {}),
        ...(endpoints ? { endpoints } : {}),
        ...(expiresAt ? { expiresAt } : {}),
        by: adminOperator(),
      });
      if (!issued) throw new CommandError(`no merchant ${merchantId}`);
      return { ...issued, scope, ...(name ? { name } : {}), ...(expiresAt ? { expiresAt } : {}) };
    },
  },
  {
    words: ['key', 'revoke'],
    usage: 'key revoke --key-id ID',
    options: { 'key-id': { type: 'string' } },
    run: async (flags) => {
      const keyId = requireFlag(flags, 'key-id');
      if (!(await revokeApiKey(keyId, adminOperator()))) throw new CommandError(`no key ${keyId}`);
      return { keyId, revoked: true };
    },
  },
];

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * `--expires`: a day (the key works until that day starts, UTC) or an ISO date-time with its zone;
 * in the future. The ISO time stored on the key.
 */
function expiryOf(value: string, now: number): string {
  const text = value.trim();
  const at = Date.parse(DATE_ONLY.test(text) ? `${text}T00:00:00Z` : text);
  if (!DATE_ONLY.test(text) && !/(Z|[+-]\d{2}:\d{2})$/.test(text)) {
    throw new UsageError(
      '--expires takes a date (2027-06-30) or a date-time with its zone (2027-06-30T12:00:00Z)',
    );
  }
  if (Number.isNaN(at)) throw new UsageError(`--expires: "${value}" is not a date`);
  if (at <= now) throw new UsageError('--expires must be in the future');
  return new Date(at).toISOString();
}

/**
 * `--rate-limit N [--burst M]`: the merchant's own limit in requests per second, replacing the
 * environment's default; the burst defaults to two seconds' worth. Warm instances pick it up within
 * the API key cache lifetime (at most 60 s).
 */
function rateLimitFlags(flags: Record<string, string | boolean | undefined>) {
  const perSecond = positiveInteger(flags, 'rate-limit');
  const burst = positiveInteger(flags, 'burst');
  if (perSecond === undefined) {
    if (burst !== undefined) throw new UsageError('--burst goes with --rate-limit');
    return undefined;
  }
  try {
    return validRateLimit({ perSecond, burst: burst ?? 2 * perSecond });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** `--network on|off` (join or leave the opt-in network), `--webhook-review-notes on|off`. */
function onOffFlag(flags: Record<string, string | boolean | undefined>, name: string): boolean | undefined {
  const value = flags[name];
  if (value === undefined) return undefined;
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new UsageError(`--${name} must be on or off`);
}

function parseEndpoints(list: string): string[] {
  const endpoints = list
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const unknown = endpoints.filter((e) => !(ENDPOINTS as readonly string[]).includes(e));
  if (endpoints.length === 0 || unknown.length > 0) {
    throw new UsageError(`--endpoints takes a comma-separated list of: ${ENDPOINTS.join(', ')}`);
  }
  return endpoints;
}
