import type { ResponseOf } from '../contract/endpoints.ts';
import { identitiesOfLogin } from '../identity/account-identities.ts';
import { identityId } from '../identity/identity-ids.ts';
import { METRIC } from '../identity/metrics.ts';
import { newServiceId } from '../ids.ts';
import { recordDecisionMetric } from '../observability-decisions.ts';
import { receivedAt } from '../request-scope.ts';
import type { LoginRequest } from '../schemas/login.ts';
import { decide } from '../scoring/decide.ts';
import { accountDeviceFacts } from '../scoring/signals/account-devices.ts';
import { identityTimeFacts, identityTimeFields } from '../scoring/signals/identity-time.ts';
import { loginSignals } from '../scoring/signals/login-signals.ts';
import { recordLogin } from '../store/account-events.ts';
import { loadDecisionContext } from '../store/decision-context.ts';
import { HistoryChanges } from '../store/identity-history.ts';
import { recordDecline, recordDevicesOnAccount } from './account-history.ts';
import { decisionsPart } from './evaluation-response.ts';
import { eventTime } from './event-time.ts';
import { answerOnce, IdempotencyClaim } from './idempotency-key.ts';
import { type Answer, type EndpointCall, fresh } from './use-case.ts';

type LoginResponse = ResponseOf<'login'>;

/**
 * POST /v1/evaluate/login: validate -> load history -> score -> decide -> one transaction -> respond.
 * Every attempt is its own event (the body has no merchant-side key), unless the call carries an
 * Idempotency-Key: then a retry is answered from the first attempt's record.
 */
export function evaluateLogin(request: EndpointCall<LoginRequest>): Promise<Answer<LoginResponse>> {
  const claim = IdempotencyClaim.of<LoginResponse>(request);
  return answerOnce(claim, () => evaluateOnce(request, claim));
}

async function evaluateOnce(
  { body, merchantId, notify }: EndpointCall<LoginRequest>,
  claim: IdempotencyClaim<LoginResponse> | undefined,
): Promise<Answer<LoginResponse>> {
  const now = receivedAt();
  const at = eventTime(body.timestamp, now);
  const identities = identitiesOfLogin(body);
  const { customer } = identities;
  const context = await loadDecisionContext({
    merchantId,
    notify,
    eventType: 'login',
    identities: identities.all,
    records: claim ? [claim.key] : [],
    now: at,
  });
  const prior = claim?.priorAnswer(context.items, now);
  if (prior) return prior;
  const account = context.snapshotsOf([customer])[0]!;
  const devices = context.snapshotsOf(identities.devices);
  const success = body.loginStatus === '$success';
  const mfaUsed = body.authMethod.mfaUsed === true;
  const facts = accountDeviceFacts(customer, account, devices);
  const time = identityTimeFacts(context.snapshots, customer, at);
  const decision = decide(
    context.models,
    context.workflow,
    loginSignals({ success, mfaUsed, customer, history: { customer: account, devices }, time }),
    {
      loginStatus: body.loginStatus,
      authMethod: body.authMethod.type,
      mfaUsed,
      mfaMethod: body.authMethod.mfaMethod ?? '',
      ...identityTimeFields(time),
    },
  );

  const serviceLoginId = newServiceId('lgn');
  const response: LoginResponse = {
    providerLoginID: body.providerCustomerId,
    serviceLoginID: serviceLoginId,
    ...decisionsPart(decision),
  };
  const changes = new HistoryChanges().addEach(
    identities.all,
    success ? METRIC.loginSuccesses : METRIC.loginFailures,
    1,
    at,
  );
  recordDevicesOnAccount(changes, customer, devices, facts.devicesNewToAccount, at);
  if (success) {
    // Only a device that got in becomes one the account trusts; failed tries would let an attacker
    // make his own device look familiar.
    changes.link(customer, identities.devices, at);
    if (mfaUsed) changes.add(customer, METRIC.mfaLogins, 1, at);
    // Read by account updates: a risky change soon after a new-device login is the takeover pattern.
    if (facts.newDevice) changes.add(customer, METRIC.newDeviceLogins, 1, at);
  }
  recordDecline(changes, decision, identities.all, at);

  await recordLogin(
    {
      merchantId,
      providerCustomerId: body.providerCustomerId,
      serviceLoginId,
      loginStatus: body.loginStatus,
      authType: body.authMethod.type,
      mfaUsed,
      identities: identities.all.map(identityId),
      decision,
      responseJson: JSON.stringify(response),
      createdAt: new Date(now).toISOString(),
      eventAt: at,
    },
    changes,
    context.items,
    now,
    claim ? [claim.recordPut(response, now)] : [],
  );
  recordDecisionMetric('login', decision.decision);
  return fresh(response);
}
