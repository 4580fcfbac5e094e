import { ApiError } from '../../shared/errors.ts';
import { listEntryRequestSchema } from '../../shared/schemas/lists.ts';
import { withdrawContribution } from '../../shared/use-cases/network-corrections.ts';
import { type AdminCommand, checked, requireFlag, UsageError } from '../command.ts';
import { ADMIN_CLI, requireMerchant } from '../targets.ts';

const identitySchema = listEntryRequestSchema.shape.identity;

/**
 * The opt-in network's corrections: a merchant's wrong contribution on one identity taken back.
 * The identity is named as the events send it, `KIND:VALUE` (a card as JSON).
 */
export const networkCommands: AdminCommand[] = [
  {
    words: ['network', 'withdraw'],
    usage:
      'network withdraw --merchant ID --identity card|device|email:VALUE   (a card as JSON, e.g. \'card:{"BIN":"411111","last4":"1234","expiry":"09/27"}\')',
    options: { merchant: { type: 'string' }, identity: { type: 'string' } },
    run: async (flags) => {
      const merchantId = await requireMerchant(flags);
      const named = requireFlag(flags, 'identity');
      const separator = named.indexOf(':');
      if (separator < 1) throw new UsageError('--identity must be KIND:VALUE');
      const kind = named.slice(0, separator);
      const raw = named.slice(separator + 1);
      const identity = checked(identitySchema, { kind, value: kind === 'card' ? parseJson(raw) : raw });
      try {
        return { merchantId, ...(await withdrawContribution(merchantId, identity, ADMIN_CLI, Date.now())) };
      } catch (error) {
        if (error instanceof ApiError) throw new UsageError(`${error.field ?? 'identity'}: ${error.message}`);
        throw error;
      }
    },
  },
];

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError('--identity card:VALUE takes the card as JSON');
  }
}
