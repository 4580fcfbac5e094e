import type { ResponseOf } from '../contract/endpoints.ts';
import { identitiesOfSignup, type SignupIdentities } from '../identity/account-identities.ts';
import { isDisposableDomain, machineGeneratedScore } from '../identity/email-patterns.ts';
import { type DigestIdentity, emailDomain, normalizeEmail } from '../identity/identities.ts';
import { identityId } from '../identity/identity-ids.ts';
import { METRIC } from '../identity/metrics.ts';
import { newServiceId } from '../ids.ts';
import type { SignupRequest } from '../schemas/signup.ts';
import { decide } from '../scoring/decide.ts';
import { listVerdict } from '../scoring/lists.ts';
import { accountDeviceFacts } from '../scoring/signals/account-devices.ts';
import { identityTimeFacts, identityTimeFields } from '../scoring/signals/identity-time.ts';
import { signupSignals } from '../scoring/signals/signup-signals.ts';
import { watchFacts } from '../scoring/signals/watched-identity.ts';
import type { SignupRecord } from '../store/account-events.ts';
import { HistoryChanges } from '../store/identity-history.ts';
import { keys } from '../store/keys.ts';
import { decisionsPart, recordDecline, recordDevicesOnAccount } from './account-history.ts';
import { type Evaluation, scoredEventUseCase } from './scored-event.ts';
import type { EndpointCall } from './use-case.ts';

type SignupResponse = ResponseOf<'signup'>;

/**
 * POST /v1/evaluate/signup through the scored-event pipeline (scored-event.ts): a signup registers
 * its account and links it to its e-mails, phones, addresses and devices (and to its referrer), and
 * is recorded under its `customerId`.
 */
export const evaluateSignup = scoredEventUseCase('signup', {
  plan: ({ body }: EndpointCall<SignupRequest>, identity: DigestIdentity) => {
    const roles = identitiesOfSignup(body, identity);
    return { identities: [...roles.all, ...roles.traffic.shards], roles };
  },
  evaluate: evaluateNewSignup,
  recorded: {
    key: (merchantId, body) => keys.signup(merchantId, body.customerId),
    answer: (stored) => JSON.parse(String(stored.responseJson)) as SignupResponse,
  },
});

function evaluateNewSignup({
  call: { body, merchantId },
  plan: { roles },
  context,
  at,
  now,
  fingerprint,
}: Evaluation<'signup', { roles: SignupIdentities }>) {
  const emails = body.contactInformation.flatMap((c) => (c.contactType === 'EMail' ? [c.address] : []));
  // Naming oneself as referrer is its own signal; the referrer's history is then this account's.
  const referrerIsSelf = roles.referrer?.digest === roles.customer.digest;
  const referrer = roles.referrer && !referrerIsSelf ? roles.referrer : undefined;
  const account = context.snapshotsOf([roles.customer])[0]!;
  const devices = context.snapshotsOf(roles.devices);
  const time = identityTimeFacts(context.snapshots, roles.customer, at);
  const decision = decide(
    context.models,
    context.workflow,
    signupSignals({
      customer: roles.customer,
      at,
      watch: watchFacts('signup', context.snapshots, [account], 'account', at),
      referrerIsSelf,
      disposableEmail: emails.some((e) => isDisposableDomain(emailDomain(e))),
      machineGeneratedEmail: Math.max(0, ...emails.map((e) => machineGeneratedScore(normalizeEmail(e)))),
      history: {
        devices,
        phones: context.snapshotsOf(roles.phones),
        addresses: context.snapshotsOf(roles.addresses),
        emails: context.snapshotsOf(roles.emails),
        emailDomains: context.snapshotsOf(roles.emailDomains),
        signupTraffic: context.snapshotsOf(roles.traffic.shards),
        surname: roles.surname ? context.snapshotsOf([roles.surname])[0] : undefined,
        fullName: roles.fullName,
        emailStems: roles.emailStems,
        referrer: referrer ? context.snapshotsOf([referrer])[0] : undefined,
      },
      time,
    }),
    {
      emailDomain: emails[0] ? emailDomain(emails[0]) : '',
      referralCodeApplied: Boolean(body.referralCodeApplied),
      hasPhone: roles.phones.length > 0,
      hasAddress: roles.addresses.length > 0,
      ...identityTimeFields(time),
    },
    // The account is the customer; an allowed e-mail vouches for the signup that names it.
    {
      ...context.policy,
      lists: listVerdict('signup', context.snapshots, [account, ...context.snapshotsOf(roles.emails)]),
    },
  );

  const response: SignupResponse = {
    providerSignupID: body.customerId,
    serviceSignupID: newServiceId('sgn'),
    ...decisionsPart(decision),
  };
  const signup: SignupRecord = {
    merchantId,
    customerId: body.customerId,
    serviceSignupId: response.serviceSignupID,
    requestHash: fingerprint.requestHash,
    ...(body.referrerID ? { referrerId: body.referrerID } : {}),
    identities: roles.all.map(identityId),
    decision,
    responseJson: JSON.stringify(response),
    createdAt: new Date(now).toISOString(),
    eventAt: at,
  };
  const changes = new HistoryChanges()
    .addEach(
      [
        ...roles.devices,
        ...roles.phones,
        ...roles.addresses,
        ...roles.emails,
        ...roles.emailDomains,
        ...(roles.surname ? [roles.surname] : []),
        roles.traffic.counted,
      ],
      METRIC.signups,
      1,
      at,
    )
    .linkAll(roles.linked, at);
  // The devices keep the account holder's whole name (no item of its own): the next account opened
  // there under the same name is the same person's, not a housemate's (household.ts).
  if (roles.fullName) for (const device of roles.devices) changes.link(device, [roles.fullName], at);
  // And the stems of its addresses: another address of the same stem there is the same holder's.
  if (roles.emailStems.length > 0)
    for (const device of roles.devices) changes.link(device, roles.emailStems, at);
  const { devicesNewToAccount } = accountDeviceFacts(roles.customer, account, devices);
  recordDevicesOnAccount(changes, roles.customer, devices, devicesNewToAccount, at);
  if (referrer) {
    changes
      .add(referrer, METRIC.referrals, 1, at)
      .link(referrer, [roles.customer], at)
      .link(roles.customer, [referrer], at);
  }
  recordDecline(changes, decision, [roles.customer, ...roles.devices], at);
  return {
    write: {
      target: {
        eventType: 'signup' as const,
        key: keys.signup(merchantId, body.customerId),
        eventId: body.customerId,
      },
      record: signup,
      decisions: decision,
      changes,
    },
    response,
  };
}
