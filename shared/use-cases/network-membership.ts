import { notFound } from '../errors.ts';
import type { NetworkMembershipView } from '../schemas/network.ts';
import { auditPut } from '../store/audit.ts';
import type { ListActor } from '../store/list-entries.ts';
import { getMerchant, saveNetworkMembership } from '../store/merchants.ts';
import { networkWorkPut, WITHDRAWAL_CAUSE } from '../store/network-items.ts';
import { readWithdrawal } from '../store/network-withdrawal.ts';

/**
 * Joining and leaving the opt-in network (the console's `PUT /v1/network`, the admin CLI's
 * `merchant update --network on|off`), audited in the same transaction. Leaving queues the
 * withdrawal of everything the merchant contributed (shared/use-cases/network-worker.ts). Decisions
 * follow within the API key cache's 30 s, like a key revocation.
 */
export async function readNetworkMembership(merchantId: string): Promise<NetworkMembershipView> {
  const [merchant, withdrawal] = await Promise.all([getMerchant(merchantId), readWithdrawal(merchantId)]);
  if (!merchant) throw notFound('No such merchant.');
  return { ...(merchant.network ?? { enabled: false }), ...(withdrawal ? { withdrawal } : {}) };
}

export async function saveMembership(
  merchantId: string,
  enabled: boolean,
  actor: ListActor,
  now: number,
): Promise<NetworkMembershipView> {
  const current = await readNetworkMembership(merchantId);
  if (current.enabled === enabled) return current;
  const { withdrawal } = current;
  const membership = { enabled, changedAt: new Date(now).toISOString() };
  const saved = await saveNetworkMembership(merchantId, membership, [
    auditPut(merchantId, {
      at: membership.changedAt,
      action: 'network.saved',
      ...actor,
      subject: 'network',
      detail: enabled
        ? 'joined: confirmed abuse and first sightings contribute, decisions read the network'
        : 'left: contributions withdrawn, decisions stop reading the network',
    }),
    ...(enabled
      ? []
      : [
          networkWorkPut({
            merchantId,
            cause: WITHDRAWAL_CAUSE,
            identities: [],
            withdraw: true,
            queuedAt: now,
          }),
        ]),
  ]);
  if (!saved) throw notFound('No such merchant.');
  if (!enabled) {
    return {
      ...membership,
      withdrawal: { status: 'running', withdrawn: 0, startedAt: membership.changedAt },
    };
  }
  return { ...membership, ...(withdrawal ? { withdrawal } : {}) };
}
