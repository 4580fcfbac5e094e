import type { ResponseOf } from '../contract/endpoints.ts';
import { type EventIdentities, identitiesOfLogin } from '../identity/account-identities.ts';
import type { DigestIdentity } from '../identity/identities.ts';
import { identityId } from '../identity/identity-ids.ts';
import { METRIC } from '../identity/metrics.ts';
import { newServiceId } from '../ids.ts';
import type { LoginRequest } from '../schemas/login.ts';
import { decide } from '../scoring/decide.ts';
import { listVerdict } from '../scoring/lists.ts';
import { identityTimeFields } from '../scoring/signals/identity-time.ts';
import { loginSignals } from '../scoring/signals/login-signals.ts';
import { watchFacts } from '../scoring/signals/watched-identity.ts';
import type { LoginRecord } from '../store/account-events.ts';
import { HistoryChanges } from '../store/identity-history.ts';
import { keys } from '../store/keys.ts';
import { accountHistoryOf, decisionsPart, recordDecline, recordDevicesOnAccount } from './account-history.ts';
import { type Evaluation, scoredEventUseCase } from './scored-event.ts';
import type { EndpointCall } from './use-case.ts';

type LoginResponse = ResponseOf<'login'>;

/**
 * POST /v1/evaluate/login through the scored-event pipeline (scored-event.ts). Every attempt is its
 * own event (the body has no merchant-side key), unless the call carries an Idempotency-Key: then a
 * retry is answered from the first attempt's record.
 */
export const evaluateLogin = scoredEventUseCase('login', {
  plan: ({ body }: EndpointCall<LoginRequest>, identity: DigestIdentity) => {
    const roles = identitiesOfLogin(body, identity);
    return { identities: roles.all, roles };
  },
  evaluate: evaluateAttempt,
});

function evaluateAttempt({
  call: { body, merchantId },
  plan: { roles },
  context,
  at,
  now,
}: Evaluation<'login', { roles: EventIdentities }>) {
  const { customer, account, devices, deviceFacts, time } = accountHistoryOf(context, roles, at);
  const success = body.loginStatus === '$success';
  const mfaUsed = body.authMethod.mfaUsed === true;
  const decision = decide(
    context.models,
    context.workflow,
    loginSignals({
      success,
      mfaUsed,
      customer,
      history: { customer: account, devices },
      time,
      watch: watchFacts('login', context.snapshots, [account], 'account', at),
    }),
    {
      loginStatus: body.loginStatus,
      authMethod: body.authMethod.type,
      mfaUsed,
      mfaMethod: body.authMethod.mfaMethod ?? '',
      ...identityTimeFields(time),
    },
    { ...context.policy, lists: listVerdict('login', context.snapshots, [account]) },
  );

  const serviceLoginId = newServiceId('lgn');
  const response: LoginResponse = {
    providerLoginID: body.providerCustomerId,
    serviceLoginID: serviceLoginId,
    ...decisionsPart(decision),
  };
  const changes = new HistoryChanges().addEach(
    roles.all,
    success ? METRIC.loginSuccesses : METRIC.loginFailures,
    1,
    at,
  );
  recordDevicesOnAccount(changes, customer, devices, deviceFacts.devicesNewToAccount, at);
  if (success) {
    // Only a device that got in becomes one the account trusts; failed tries would let an attacker
    // make his own device look familiar.
    changes.link(customer, roles.devices, at);
    if (mfaUsed) changes.add(customer, METRIC.mfaLogins, 1, at);
    // Read by account updates: a risky change soon after a new-device login is the takeover pattern.
    if (deviceFacts.newDevice)
      changes.add(customer, METRIC.newDeviceLogins, 1, at).stamp(customer, METRIC.newDeviceLogins, at);
  }
  recordDecline(changes, decision, roles.all, at);
  const login: LoginRecord = {
    merchantId,
    providerCustomerId: body.providerCustomerId,
    serviceLoginId,
    loginStatus: body.loginStatus,
    authType: body.authMethod.type,
    mfaUsed,
    identities: roles.all.map(identityId),
    decision,
    responseJson: JSON.stringify(response),
    createdAt: new Date(now).toISOString(),
    eventAt: at,
  };
  return {
    write: {
      target: {
        eventType: 'login' as const,
        key: keys.login(merchantId, serviceLoginId),
        eventId: serviceLoginId,
      },
      record: login,
      decisions: decision,
      changes,
    },
    response,
  };
}
