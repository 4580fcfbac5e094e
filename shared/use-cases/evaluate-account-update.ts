import type { ResponseOf } from '../contract/endpoints.ts';
import { type EventIdentities, identitiesOfAccountUpdate } from '../identity/account-identities.ts';
import { identityId } from '../identity/identity-ids.ts';
import { METRIC } from '../identity/metrics.ts';
import { newServiceId } from '../ids.ts';
import { logger } from '../observability.ts';
import { type AccountRequest, RISKY_CHANGE_TYPES } from '../schemas/account.ts';
import { decide } from '../scoring/decide.ts';
import { listVerdict } from '../scoring/lists.ts';
import { accountSignals } from '../scoring/signals/account-signals.ts';
import { identityTimeFields } from '../scoring/signals/identity-time.ts';
import { watchFacts } from '../scoring/signals/watched-identity.ts';
import type { AccountUpdateRecord } from '../store/account-events.ts';
import { sha256Hex } from '../store/canonical.ts';
import { HistoryChanges } from '../store/identity-history.ts';
import { keys } from '../store/keys.ts';
import { accountHistoryOf, decisionsPart, recordDecline, recordDevicesOnAccount } from './account-history.ts';
import { type Evaluation, scoredEventUseCase } from './scored-event.ts';
import type { EndpointCall } from './use-case.ts';

type AccountResponse = ResponseOf<'account'>;

/**
 * POST /v1/evaluate/account through the scored-event pipeline (scored-event.ts). The schema has
 * already refused literal passwords; values are never logged, and only a flag (or, for
 * non-credential changes, a digest) is stored. With an Idempotency-Key a retry is answered from the
 * first attempt's record.
 */
export const evaluateAccountUpdate = scoredEventUseCase('account', {
  plan: ({ body }: EndpointCall<AccountRequest>) => {
    const roles = identitiesOfAccountUpdate(body);
    return { identities: roles.all, roles };
  },
  evaluate: evaluateChange,
});

function evaluateChange({
  call: { body, merchantId },
  plan: { roles },
  context,
  at,
  now,
}: Evaluation<'account', { roles: EventIdentities }>) {
  const { customer, account, devices, deviceFacts, time } = accountHistoryOf(context, roles, at);
  const risky = RISKY_CHANGE_TYPES.has(body.changeType);
  const decision = decide(
    context.models,
    context.workflow,
    accountSignals({
      changeType: body.changeType,
      risky,
      watch: watchFacts('account', context.snapshots, [account], 'account', at),
      customer,
      history: { customer: account, devices },
      time,
    }),
    { changeType: body.changeType, siteDomain: body.siteDomain, ...identityTimeFields(time) },
    { ...context.policy, lists: listVerdict('account', context.snapshots, [account]) },
  );

  const serviceAccountEventId = newServiceId('acct');
  const response: AccountResponse = {
    // The contract gives account updates no event id of their own. As providerLoginID does for
    // logins, this echoes providerCustomerId, the only merchant-side id in the body; the event
    // itself is named by serviceAccountEventId.
    providerAccountEventId: body.providerCustomerId,
    serviceAccountEventId,
    ...decisionsPart(decision),
  };
  const changes = new HistoryChanges().add(customer, METRIC.accountChanges, 1, at);
  if (risky) changes.add(customer, METRIC.riskyAccountChanges, 1, at);
  recordDevicesOnAccount(changes, customer, devices, deviceFacts.devicesNewToAccount, at);
  recordDecline(changes, decision, roles.all, at);
  const event: AccountUpdateRecord = {
    merchantId,
    providerCustomerId: body.providerCustomerId,
    serviceAccountEventId,
    changeType: body.changeType,
    timestamp: Number(body.timestamp),
    previousValue: storedValue(merchantId, body.changeType, body.previousValue),
    newValue: storedValue(merchantId, body.changeType, body.newValue),
    identities: roles.all.map(identityId),
    decision,
    responseJson: JSON.stringify(response),
    createdAt: new Date(now).toISOString(),
    eventAt: at,
  };
  logger.debug('account update evaluated', {
    changeType: body.changeType,
    decision: decision.decision,
    abuseScore: decision.abuseScore,
  });
  return {
    write: {
      target: {
        eventType: 'account' as const,
        key: keys.accountEvent(merchantId, serviceAccountEventId),
        eventId: serviceAccountEventId,
      },
      record: event,
      decisions: decision,
      changes,
    },
    response,
  };
}

/** Whether a value came, plus a merchant-scoped digest unless it is a credential (kept as a flag only). */
function storedValue(
  merchantId: string,
  changeType: AccountRequest['changeType'],
  value: string | undefined,
) {
  if (value === undefined) return { given: false };
  if (changeType === 'PASSWORD_CHANGE') return { given: true };
  return { given: true, digest: sha256Hex(`${merchantId}:${changeType}:${value}`) };
}
