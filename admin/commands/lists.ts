import { toWire } from '../../shared/console/lists.ts';
import { ApiError } from '../../shared/errors.ts';
import {
  LIST_KINDS,
  LIST_NAMES,
  LIST_RULES,
  LIST_SOURCES,
  type ListRule,
  listEntryQuerySchema,
  listEntryRequestSchema,
} from '../../shared/schemas/lists.ts';
import {
  addListEntry,
  findListEntries,
  readListRules,
  removeListEntry,
  saveRules,
  showListEntry,
} from '../../shared/use-cases/manage-lists.ts';
import {
  type AdminCommand,
  CommandError,
  checked,
  positiveInteger,
  requireFlag,
  UsageError,
} from '../command.ts';
import { ADMIN_CLI, requireMerchant } from '../targets.ts';

type Flags = Record<string, string | boolean | undefined>;

const DEFAULT_LIST_LIMIT = 50;
/** `--lost-fraud-chargeback on|off`, ... */
const ruleFlag = (rule: ListRule) => rule.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/**
 * Block, watch and allow lists: add, remove, show and list entries, and switch the feedback rules.
 * Checked by the management API's own schemas, so a value refused there is refused here.
 */
export const listCommands: AdminCommand[] = [
  {
    words: ['lists', 'add'],
    usage: `lists add --merchant ID --list ${LIST_NAMES.join('|')} --kind ${LIST_KINDS.join('|')} --value V --reason TEXT [--expires ISO-8601] [--event-types order,return] [--source manual|rule]   (card and address: --value as JSON, e.g. '{"BIN":"411111","last4":"1234","expiry":"09/27"}')`,
    options: {
      merchant: { type: 'string' },
      list: { type: 'string' },
      kind: { type: 'string' },
      value: { type: 'string' },
      reason: { type: 'string' },
      expires: { type: 'string' },
      'event-types': { type: 'string' },
      source: { type: 'string' },
    },
    run: async (flags) => {
      const merchantId = await requireMerchant(flags);
      const kind = requireFlag(flags, 'kind');
      const raw = requireFlag(flags, 'value');
      const request = checked(listEntryRequestSchema, {
        list: requireFlag(flags, 'list'),
        identity: { kind, value: kind === 'card' || kind === 'address' ? parseJson(raw) : raw },
        reason: requireFlag(flags, 'reason'),
        ...(typeof flags.expires === 'string' ? { expiresAt: flags.expires } : {}),
        ...(typeof flags['event-types'] === 'string' ? { eventTypes: flags['event-types'].split(',') } : {}),
        ...(typeof flags.source === 'string' ? { source: flags.source } : {}),
      });
      const { entry, replayed } = await inMerchant(addListEntry(merchantId, request, ADMIN_CLI, Date.now()));
      return { merchantId, ...(replayed ? { alreadyAdded: true } : {}), entry: toWire(entry) };
    },
  },
  {
    words: ['lists', 'remove'],
    usage: 'lists remove --merchant ID --entry ID',
    options: { merchant: { type: 'string' }, entry: { type: 'string' } },
    run: async (flags) => {
      const merchantId = await requireMerchant(flags);
      const entryId = requireFlag(flags, 'entry');
      await inMerchant(removeListEntry(merchantId, entryId, ADMIN_CLI, Date.now()));
      return { merchantId, entryId, deleted: true };
    },
  },
  {
    words: ['lists', 'show'],
    usage: 'lists show --merchant ID --entry ID',
    options: { merchant: { type: 'string' }, entry: { type: 'string' } },
    run: async (flags) => {
      const merchantId = await requireMerchant(flags);
      const entry = await inMerchant(showListEntry(merchantId, requireFlag(flags, 'entry'), Date.now()));
      return { merchantId, entry: toWire(entry) };
    },
  },
  {
    words: ['lists', 'list'],
    usage: `lists list --merchant ID [--list ${LIST_NAMES.join('|')}] [--kind ${LIST_KINDS.join('|')}] [--source ${LIST_SOURCES.join('|')}] [--limit ${DEFAULT_LIST_LIMIT}] [--cursor C]`,
    options: {
      merchant: { type: 'string' },
      list: { type: 'string' },
      kind: { type: 'string' },
      source: { type: 'string' },
      limit: { type: 'string' },
      cursor: { type: 'string' },
    },
    run: async (flags) => {
      const merchantId = await requireMerchant(flags);
      const {
        cursor,
        limit: _limit,
        ...filter
      } = checked(
        listEntryQuerySchema,
        Object.fromEntries(
          ['list', 'kind', 'source', 'cursor'].flatMap((name) =>
            typeof flags[name] === 'string' ? [[name, flags[name]]] : [],
          ),
        ),
      );
      const limit = positiveInteger(flags, 'limit') ?? DEFAULT_LIST_LIMIT;
      const page = await inMerchant(findListEntries(merchantId, filter, cursor, limit, Date.now()));
      return {
        merchantId,
        count: page.items.length,
        entries: page.items.map(toWire),
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      };
    },
  },
  {
    words: ['lists', 'rules'],
    usage: `lists rules --merchant ID ${LIST_RULES.map((rule) => `[--${ruleFlag(rule)} on|off]`).join(' ')}`,
    options: {
      merchant: { type: 'string' },
      ...Object.fromEntries(LIST_RULES.map((rule) => [ruleFlag(rule), { type: 'string' as const }])),
    },
    run: async (flags) => {
      const merchantId = await requireMerchant(flags);
      const current = await inMerchant(readListRules(merchantId));
      const changes = LIST_RULES.filter((rule) => flags[ruleFlag(rule)] !== undefined);
      if (changes.length === 0) return { merchantId, rules: current };
      const rules = { ...current };
      for (const rule of changes) rules[rule] = onOff(flags, ruleFlag(rule));
      return { merchantId, rules: await inMerchant(saveRules(merchantId, rules, ADMIN_CLI, Date.now())) };
    },
  },
];

function onOff(flags: Flags, name: string): boolean {
  const value = flags[name];
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new UsageError(`--${name} must be on or off`);
}

/** The management API's validation, in the CLI's words. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError('--value must be JSON for a card or an address');
  }
}

/** A missing entry or merchant is a CommandError (exit 1), like the other commands' missing records. */
async function inMerchant<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof ApiError) throw new CommandError(error.message);
    throw error;
  }
}
