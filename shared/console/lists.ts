import type { ConsoleCaller, ManagementUseCase } from '../http/management-handler.ts';
import type { ListEntryView } from '../schemas/lists.ts';
import {
  addListEntry,
  findListEntries,
  type ListedEntry,
  readListRules,
  removeListEntry,
  saveRules,
  showListEntry,
} from '../use-cases/manage-lists.ts';

/**
 * The management API's block, watch and allow lists (console scope): the same use cases as the
 * admin CLI's `lists` commands, audited with the console key's holder.
 */
const DEFAULT_PAGE = 25;
const entryIdOf = (pathParameters: Readonly<Record<string, string>>) => pathParameters['entry-id'] ?? '';
const actorOf = (caller: ConsoleCaller) => ({ keyId: caller.keyId, keyName: caller.keyName });

/** GET /v1/lists: newest first, filtered by list, kind or source. */
export const listEntries: ManagementUseCase<'listEntryList'> = async ({ caller, query }) => {
  const { cursor, limit, ...filter } = query;
  const page = await findListEntries(caller.merchantId, filter, cursor, limit ?? DEFAULT_PAGE, Date.now());
  return {
    body: { items: page.items.map(toWire), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) },
  };
};

/** POST /v1/lists */
export const addEntry: ManagementUseCase<'listEntryAdd'> = async ({ caller, body }) => {
  const { entry, replayed } = await addListEntry(caller.merchantId, body, actorOf(caller), Date.now());
  return { body: toWire(entry), ...(replayed ? { headers: { 'Idempotent-Replayed': 'true' } } : {}) };
};

/** GET /v1/lists/{entry-id} */
export const showEntry: ManagementUseCase<'listEntryShow'> = async ({ caller, pathParameters }) => ({
  body: toWire(await showListEntry(caller.merchantId, entryIdOf(pathParameters), Date.now())),
});

/** DELETE /v1/lists/{entry-id} */
export const removeEntry: ManagementUseCase<'listEntryRemove'> = async ({ caller, pathParameters }) => {
  const entryId = entryIdOf(pathParameters);
  await removeListEntry(caller.merchantId, entryId, actorOf(caller), Date.now());
  return { body: { entryId, deleted: true } };
};

/** GET /v1/list-rules */
export const showListRules: ManagementUseCase<'listRulesShow'> = async ({ caller }) => ({
  body: await readListRules(caller.merchantId),
});

/** PUT /v1/list-rules */
export const saveListRules: ManagementUseCase<'listRulesSave'> = async ({ caller, body }) => ({
  body: await saveRules(caller.merchantId, body, actorOf(caller), Date.now()),
});

/** An entry as the API shows it: the digest's first characters only. */
export function toWire(entry: ListedEntry): ListEntryView {
  const { digest, note: _note, ...shown } = entry;
  return { ...shown, identityDigest: digest.slice(0, 8) };
}
