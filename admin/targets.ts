import { userInfo } from 'node:os';
import { EVENT_TYPES, type EventType } from '../shared/contract/endpoints.ts';
import { isEventType } from '../shared/scoring/workflow.ts';
import { getMerchant } from '../shared/store/merchants.ts';
import { CommandError, requireFlag, UsageError } from './command.ts';

/** What most commands act on: `--type` (a usage error when unknown) and `--merchant` (must exist). */
type Flags = Record<string, string | boolean | undefined>;

/** Who the admin CLI is in the audit log. */
export const ADMIN_CLI = { keyId: 'admin_cli', keyName: 'admin CLI' };

/**
 * The admin CLI with the person running it (ADMIN_OPERATOR, else the machine's user name), for the
 * audit entries of key creation, revocation and suspension: who, not only which tool.
 */
export function adminOperator(): { keyId: string; keyName: string } {
  const operator = process.env.ADMIN_OPERATOR?.trim() || userInfo().username;
  return { keyId: ADMIN_CLI.keyId, keyName: `${ADMIN_CLI.keyName} (${operator})`.slice(0, 256) };
}

export function requireType(flags: Flags): EventType {
  const value = requireFlag(flags, 'type');
  if (!isEventType(value)) throw new UsageError(`--type must be one of ${EVENT_TYPES.join(', ')}`);
  return value;
}

export async function requireMerchant(flags: Flags): Promise<string> {
  const merchantId = requireFlag(flags, 'merchant');
  if (!(await getMerchant(merchantId))) throw new CommandError(`no merchant ${merchantId}`);
  return merchantId;
}
