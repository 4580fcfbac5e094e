import type { ResponseOf } from '../contract/endpoints.ts';
import { ApiError } from '../errors.ts';
import { identitiesOfSignup } from '../identity/account-identities.ts';
import { isDisposableDomain, machineGeneratedScore } from '../identity/email-patterns.ts';
import { emailDomain, normalizeEmail } from '../identity/identities.ts';
import { identityId } from '../identity/identity-ids.ts';
import { METRIC } from '../identity/metrics.ts';
import { newServiceId } from '../ids.ts';
import { recordDecisionMetric } from '../observability-decisions.ts';
import { receivedAt } from '../request-scope.ts';
import type { SignupRequest } from '../schemas/signup.ts';
import { decide } from '../scoring/decide.ts';
import { accountDeviceFacts } from '../scoring/signals/account-devices.ts';
import { identityTimeFacts, identityTimeFields } from '../scoring/signals/identity-time.ts';
import { signupSignals } from '../scoring/signals/signup-signals.ts';
import { recordSignup, type StoredSignup } from '../store/account-events.ts';
import { requestFingerprint } from '../store/canonical.ts';
import { loadDecisionContext } from '../store/decision-context.ts';
import { HistoryChanges } from '../store/identity-history.ts';
import { keys } from '../store/keys.ts';
import { recordDecline, recordDevicesOnAccount } from './account-history.ts';
import { decisionsPart } from './evaluation-response.ts';
import { eventTime } from './event-time.ts';
import { replayOf } from './idempotency.ts';
import { type Answer, type EndpointCall, fresh } from './use-case.ts';

type SignupResponse = ResponseOf<'signup'>;

/** POST /v1/evaluate/signup: validate -> load history -> score -> decide -> one transaction -> respond. */
export async function evaluateSignup({
  body,
  merchantId,
  notify,
}: EndpointCall<SignupRequest>): Promise<Answer<SignupResponse>> {
  const now = receivedAt();
  const at = eventTime(body.timestamp, now);
  const requestHash = requestFingerprint(body);
  const identities = identitiesOfSignup(body);
  const signupKey = keys.signup(merchantId, body.customerId);
  const context = await loadDecisionContext({
    merchantId,
    notify,
    eventType: 'signup',
    identities: identities.all,
    records: [signupKey],
    now: at,
  });
  const existing = context.item<StoredSignup>(signupKey);
  if (existing) return answerRepeat(existing, requestHash);

  const emails = body.contactInformation.flatMap((c) => (c.contactType === 'EMail' ? [c.address] : []));
  // Naming oneself as referrer is its own signal; the referrer's history is then this account's.
  const referrerIsSelf = identities.referrer?.digest === identities.customer.digest;
  const referrer = identities.referrer && !referrerIsSelf ? identities.referrer : undefined;
  const account = context.snapshotsOf([identities.customer])[0]!;
  const devices = context.snapshotsOf(identities.devices);
  const time = identityTimeFacts(context.snapshots, identities.customer, at);
  const decision = decide(
    context.models,
    context.workflow,
    signupSignals({
      customer: identities.customer,
      at,
      referrerIsSelf,
      disposableEmail: emails.some((e) => isDisposableDomain(emailDomain(e))),
      machineGeneratedEmail: Math.max(0, ...emails.map((e) => machineGeneratedScore(normalizeEmail(e)))),
      history: {
        devices,
        phones: context.snapshotsOf(identities.phones),
        addresses: context.snapshotsOf(identities.addresses),
        emails: context.snapshotsOf(identities.emails),
        emailDomains: context.snapshotsOf(identities.emailDomains),
        referrer: referrer ? context.snapshotsOf([referrer])[0] : undefined,
      },
      time,
    }),
    {
      emailDomain: emails[0] ? emailDomain(emails[0]) : '',
      referralCodeApplied: Boolean(body.referralCodeApplied),
      hasPhone: identities.phones.length > 0,
      hasAddress: identities.addresses.length > 0,
      ...identityTimeFields(time),
    },
  );

  const serviceSignupId = newServiceId('sgn');
  const response: SignupResponse = {
    providerSignupID: body.customerId,
    serviceSignupID: serviceSignupId,
    ...decisionsPart(decision),
  };
  const signup: StoredSignup = {
    merchantId,
    customerId: body.customerId,
    serviceSignupId,
    requestHash,
    ...(body.referrerID ? { referrerId: body.referrerID } : {}),
    identities: identities.all.map(identityId),
    decision,
    responseJson: JSON.stringify(response),
    createdAt: new Date(now).toISOString(),
    eventAt: at,
  };
  const changes = new HistoryChanges()
    .addEach(
      [
        ...identities.devices,
        ...identities.phones,
        ...identities.addresses,
        ...identities.emails,
        ...identities.emailDomains,
      ],
      METRIC.signups,
      1,
      at,
    )
    .linkAll(identities.linked, at);
  const { devicesNewToAccount } = accountDeviceFacts(identities.customer, account, devices);
  recordDevicesOnAccount(changes, identities.customer, devices, devicesNewToAccount, at);
  if (referrer) {
    changes
      .add(referrer, METRIC.referrals, 1, at)
      .link(referrer, [identities.customer], at)
      .link(identities.customer, [referrer], at);
  }
  recordDecline(changes, decision, [identities.customer, ...identities.devices], at);

  const outcome = await recordSignup(signup, changes, context.items, now);
  if (!outcome.recorded) return answerRepeat(outcome.existing, requestHash);
  recordDecisionMetric('signup', decision.decision);
  return fresh(response);
}

/** Signups have no status fields: the same body (compared canonically) replays, any other is a conflict. */
function answerRepeat(stored: StoredSignup, requestHash: string): Answer<SignupResponse> {
  if (stored.requestHash === requestHash) return replayOf(stored);
  throw new ApiError(
    'duplicate_customer',
    'A signup with this customerId was already recorded with a different body.',
    {
      field: 'customerId',
    },
  );
}
