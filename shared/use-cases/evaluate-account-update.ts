import type { ResponseOf } from '../contract/endpoints.ts';
import { identitiesOfAccountUpdate } from '../identity/account-identities.ts';
import { identityId } from '../identity/identity-ids.ts';
import { METRIC } from '../identity/metrics.ts';
import { newServiceId } from '../ids.ts';
import { logger } from '../observability.ts';
import { recordDecisionMetric } from '../observability-decisions.ts';
import { receivedAt } from '../request-scope.ts';
import { type AccountRequest, RISKY_CHANGE_TYPES } from '../schemas/account.ts';
import { decide } from '../scoring/decide.ts';
import { accountDeviceFacts } from '../scoring/signals/account-devices.ts';
import { accountSignals } from '../scoring/signals/account-signals.ts';
import { identityTimeFacts, identityTimeFields } from '../scoring/signals/identity-time.ts';
import { recordAccountEvent, type StoredAccountEvent } from '../store/account-events.ts';
import { sha256Hex } from '../store/canonical.ts';
import { loadDecisionContext } from '../store/decision-context.ts';
import { HistoryChanges } from '../store/identity-history.ts';
import { recordDecline, recordDevicesOnAccount } from './account-history.ts';
import { decisionsPart } from './evaluation-response.ts';
import { eventTime } from './event-time.ts';
import { answerOnce, IdempotencyClaim } from './idempotency-key.ts';
import { type Answer, type EndpointCall, fresh } from './use-case.ts';

type AccountResponse = ResponseOf<'account'>;

/**
 * POST /v1/evaluate/account: validate -> load history -> score -> decide -> one transaction -> respond.
 * The schema has already refused literal passwords; values are never logged, and only a flag (or,
 * for non-credential changes, a digest) is stored. With an Idempotency-Key a retry is answered from
 * the first attempt's record.
 */
export function evaluateAccountUpdate(
  request: EndpointCall<AccountRequest>,
): Promise<Answer<AccountResponse>> {
  const claim = IdempotencyClaim.of<AccountResponse>(request);
  return answerOnce(claim, () => evaluateOnce(request, claim));
}

async function evaluateOnce(
  { body, merchantId, notify }: EndpointCall<AccountRequest>,
  claim: IdempotencyClaim<AccountResponse> | undefined,
): Promise<Answer<AccountResponse>> {
  const now = receivedAt();
  const at = eventTime(body.timestamp, now);
  const identities = identitiesOfAccountUpdate(body);
  const { customer } = identities;
  const context = await loadDecisionContext({
    merchantId,
    notify,
    eventType: 'account',
    identities: identities.all,
    records: claim ? [claim.key] : [],
    now: at,
  });
  const prior = claim?.priorAnswer(context.items, now);
  if (prior) return prior;
  const account = context.snapshotsOf([customer])[0]!;
  const devices = context.snapshotsOf(identities.devices);
  const risky = RISKY_CHANGE_TYPES.has(body.changeType);
  const time = identityTimeFacts(context.snapshots, customer, at);
  const decision = decide(
    context.models,
    context.workflow,
    accountSignals({
      changeType: body.changeType,
      risky,
      customer,
      history: { customer: account, devices },
      time,
    }),
    { changeType: body.changeType, siteDomain: body.siteDomain, ...identityTimeFields(time) },
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
  recordDevicesOnAccount(
    changes,
    customer,
    devices,
    accountDeviceFacts(customer, account, devices).devicesNewToAccount,
    at,
  );
  recordDecline(changes, decision, identities.all, at);

  const event: StoredAccountEvent = {
    merchantId,
    providerCustomerId: body.providerCustomerId,
    serviceAccountEventId,
    changeType: body.changeType,
    timestamp: Number(body.timestamp),
    previousValue: storedValue(merchantId, body.changeType, body.previousValue),
    newValue: storedValue(merchantId, body.changeType, body.newValue),
    identities: identities.all.map(identityId),
    decision,
    responseJson: JSON.stringify(response),
    createdAt: new Date(now).toISOString(),
    eventAt: at,
  };
  await recordAccountEvent(event, changes, context.items, now, claim ? [claim.recordPut(response, now)] : []);
  recordDecisionMetric('account', decision.decision);
  logger.debug('account update evaluated', {
    changeType: body.changeType,
    decision: decision.decision,
    abuseScore: decision.abuseScore,
  });
  return fresh(response);
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
