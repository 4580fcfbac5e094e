import { useState } from 'preact/hooks';
import { api, type NetworkMembership } from '../api.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Time } from '../components/Time.tsx';
import { useLoad } from '../components/useLoad.ts';
import { format } from '../format.ts';

/**
 * Membership of the opt-in network (docs/network.md): what joining shares, whether the merchant is
 * a member and since when, and joining or leaving after a confirmation (audited as `network.saved`).
 */
export function NetworkPage() {
  const loaded = useLoad((client) => client.network(), []);
  const [saved, setSaved] = useState<NetworkMembership>();
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<unknown>();
  const membership = saved ?? loaded.data;
  const save = async (enabled: boolean) => {
    setError(undefined);
    try {
      setSaved(await api.saveNetwork(enabled));
      setConfirming(false);
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <section class="detail network" aria-label="Network membership">
      <p>
        Members share, for each card, device and e-mail they have seen, only a hashed key with counts of its
        confirmed abuse (lost fraud chargebacks, abusive returns, reviews resolved as abuse, account
        takeovers) and of the merchants that have seen it. Never your events, amounts or customers, and never
        which merchant reported what.
      </p>
      <p>
        Contributing and receiving go together: your decisions read what other members confirmed, and what you
        confirm counts for them. Leaving withdraws everything you contributed.
      </p>
      <ErrorMessage error={loaded.error} action="Loading the network membership" />
      {membership ? (
        <>
          <h2>{membership.enabled ? 'You are a member' : 'You are not a member'}</h2>
          {membership.changedAt ? (
            <p class="muted">
              {membership.enabled ? 'Joined' : 'Left'} <Time value={membership.changedAt} />
            </p>
          ) : null}
          {membership.withdrawal ? <Withdrawal withdrawal={membership.withdrawal} /> : null}
          {confirming ? (
            <div class="notice">
              <p>
                {membership.enabled
                  ? 'Leaving withdraws everything you contributed, and your decisions stop reading the network.'
                  : 'Joining shares your confirmed abuse and first sightings from now on, and your decisions read the network.'}{' '}
                Decisions follow within 30 seconds.
              </p>
              <div class="actions">
                <button type="button" onClick={() => void save(!membership.enabled)}>
                  {membership.enabled ? 'Confirm leaving' : 'Confirm joining'}
                </button>
                <button type="button" class="secondary" onClick={() => setConfirming(false)}>
                  Cancel
                </button>
              </div>
            </div>
          ) : (
            <div class="actions">
              <button type="button" onClick={() => setConfirming(true)}>
                {membership.enabled ? 'Leave the network' : 'Join the network'}
              </button>
            </div>
          )}
          {saved && !confirming ? (
            <p class="success" role="status">
              {saved.enabled
                ? 'Joined the network.'
                : 'Left the network: your contributions are being withdrawn.'}
            </p>
          ) : null}
        </>
      ) : null}
      <ErrorMessage error={error} action="Saving the network membership" />
    </section>
  );
}

/** How far the withdrawal of what the merchant contributed has gone since it last left. */
function Withdrawal({ withdrawal }: { withdrawal: NonNullable<NetworkMembership['withdrawal']> }) {
  const identities = format.count(withdrawal.withdrawn, 'identity', 'identities');
  return withdrawal.status === 'done' ? (
    <p class="muted">
      Contributions withdrawn: {identities}, finished{' '}
      {withdrawal.finishedAt ? <Time value={withdrawal.finishedAt} /> : null}.
    </p>
  ) : (
    <p class="muted">
      Withdrawing your contributions: {identities} so far
      {withdrawal.updatedAt ? (
        <>
          {' '}
          (<Time value={withdrawal.updatedAt} />)
        </>
      ) : null}
      . Reload to follow it.
    </p>
  );
}
