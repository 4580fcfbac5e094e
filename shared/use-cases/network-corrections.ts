import { ApiError } from '../errors.ts';
import { listedIdentityRef } from '../lists/entries.ts';
import { withoutCauses } from '../network/reputation.ts';
import type { ListedIdentity } from '../schemas/lists.ts';
import { isNetworkKind } from '../scoring/network-reputation.ts';
import { auditPut } from '../store/audit.ts';
import { identityKey } from '../store/identity-history.ts';
import type { ListActor } from '../store/list-entries.ts';
import { applyContribution } from '../store/network-contributions.ts';
import { networkKeyFrom, ownSummaryFrom } from '../store/network-items.ts';
import { getRecord } from '../store/record-once.ts';

/**
 * An operator's correction (`admin network withdraw`): a merchant's confirmed abuse on one identity,
 * reported wrongly, is taken out of the network's reputation, audited in the same transaction. The
 * merchant's sighting stays (it did see the identity). Its feedback records are left as they are: a
 * later state of one of them is contributed again like any feedback.
 */
export async function withdrawContribution(
  merchantId: string,
  named: ListedIdentity,
  actor: ListActor,
  now: number,
): Promise<{ identity: string; causesWithdrawn: number }> {
  const { ref, hint } = listedIdentityRef(named);
  if (!isNetworkKind(ref.kind))
    throw new ApiError('unprocessable_entity', 'The network shares cards, devices and e-mails only.', {
      field: 'identity.kind',
    });
  const item = await getRecord<Record<string, unknown>>(identityKey(merchantId, ref));
  const networkKey = networkKeyFrom(item);
  const own = ownSummaryFrom(item);
  const causes = Object.values(own?.abuse ?? {}).reduce((sum, kind) => sum + kind.n, 0);
  if (!networkKey || causes === 0) return { identity: hint, causesWithdrawn: 0 };
  const at = new Date(now).toISOString();
  const outcome = await applyContribution(
    { networkKey, merchantId, identity: ref, change: withoutCauses },
    now,
    [
      auditPut(merchantId, {
        at,
        action: 'network.withdrawn',
        ...actor,
        subject: 'network',
        detail: `confirmed abuse on ${hint} withdrawn from the network (${causes} reported)`,
      }),
    ],
  );
  return { identity: hint, causesWithdrawn: outcome === 'written' ? causes : 0 };
}
