import type { AccountRequest } from '../schemas/account.ts';
import type { LoginRequest } from '../schemas/login.ts';
import type { SignupRequest } from '../schemas/signup.ts';
import { shardOf } from '../shard-of.ts';
import { contactIdentities, deviceIdentities } from './contact-identities.ts';
import { emailStem, isCommonProvider } from './email-patterns.ts';
import {
  type DigestIdentity,
  emailDomain,
  type IdentityRef,
  nameIdentities,
  normalizeEmail,
  uniqueIdentities,
} from './identities.ts';

/** The account (a merchant customer id, or the attempted username for a login to no account). */
export const customerIdentity = (identity: DigestIdentity, customerId: string): IdentityRef =>
  identity('customer', customerId.trim());

/**
 * The merchant's signups are counted over this many items, a signup adding to the one its account id
 * hashes to, so that a launch's hundreds of signups a minute never queue on one item; a signup reads
 * them all (one BatchGetItem, as every identity it names) for the merchant's total.
 */
const SIGNUP_TRAFFIC_SHARDS = 8;
const SIGNUP_TRAFFIC = Array.from({ length: SIGNUP_TRAFFIC_SHARDS }, (_, shard) => String(shard));

/** The identities a signup names, by role. */
export interface SignupIdentities {
  customer: IdentityRef;
  username: IdentityRef;
  emails: IdentityRef[];
  phones: IdentityRef[];
  addresses: IdentityRef[];
  devices: IdentityRef[];
  /** Domains of the e-mails, except the big shared providers (see isCommonProvider). */
  emailDomains: IdentityRef[];
  /** The referrer's account, when the signup names one. */
  referrer: IdentityRef | undefined;
  /** The account holder's surname; undefined when it normalises to nothing. */
  surname: IdentityRef | undefined;
  /** First name and surname together, when both normalise to something: only its devices keep it. */
  fullName: IdentityRef | undefined;
  /** The e-mails' stems (email-patterns.ts `emailStem`): only its devices keep them. */
  emailStems: IdentityRef[];
  /** The merchant's signup counter: the shard this signup counts in, and every shard (read). */
  traffic: { counted: IdentityRef; shards: IdentityRef[] };
  /** The identities the signup links to each other and to the account. */
  linked: IdentityRef[];
  /** Everything the decision reads. */
  all: IdentityRef[];
}

export function identitiesOfSignup(signup: SignupRequest, identity: DigestIdentity): SignupIdentities {
  const contacts = contactIdentities(signup.contactInformation, identity);
  const customer = customerIdentity(identity, signup.customerId);
  const username = identity('username', signup.username.trim().toLowerCase());
  const addresses = uniqueIdentities([...contacts.billingAddresses, ...contacts.shippingAddresses]);
  const devices = deviceIdentities(identity, signup.deviceFingerprints);
  const emailAddresses = signup.contactInformation.flatMap((c) =>
    c.contactType === 'EMail' ? [c.address] : [],
  );
  const emailDomains = uniqueIdentities(
    emailAddresses.flatMap((address) => {
      const domain = emailDomain(address);
      return domain && !isCommonProvider(domain) ? [identity('emailDomain', domain)] : [];
    }),
  );
  const referrer = signup.referrerID ? customerIdentity(identity, signup.referrerID) : undefined;
  const { surname, fullName } = nameIdentities(identity, signup.firstName, signup.lastName);
  const emailStems = uniqueIdentities(
    emailAddresses.flatMap((address) => {
      const stem = emailStem(normalizeEmail(address));
      return stem ? [identity('emailStem', stem)] : [];
    }),
  );
  const linked = uniqueIdentities([
    customer,
    username,
    ...contacts.emails,
    ...contacts.phones,
    ...addresses,
    ...devices,
    ...(surname ? [surname] : []),
  ]);
  return {
    customer,
    username,
    emails: contacts.emails,
    phones: contacts.phones,
    addresses,
    devices,
    emailDomains,
    referrer,
    surname,
    fullName,
    emailStems,
    traffic: {
      counted: identity('signupTraffic', String(shardOf(signup.customerId, SIGNUP_TRAFFIC_SHARDS))),
      shards: SIGNUP_TRAFFIC.map((shard) => identity('signupTraffic', shard)),
    },
    linked,
    all: uniqueIdentities([...linked, ...emailDomains, ...(referrer ? [referrer] : [])]),
  };
}

/** A login reads and moves the account's and its devices' history. */
export interface EventIdentities {
  customer: IdentityRef;
  devices: IdentityRef[];
  all: IdentityRef[];
}

export function identitiesOfLogin(login: LoginRequest, identity: DigestIdentity): EventIdentities {
  const customer = customerIdentity(identity, login.providerCustomerId);
  const devices = deviceIdentities(identity, login.authMethod.deviceFingerprints, login.deviceFingerprints);
  return { customer, devices, all: [customer, ...devices] };
}

export function identitiesOfAccountUpdate(update: AccountRequest, identity: DigestIdentity): EventIdentities {
  const customer = customerIdentity(identity, update.providerCustomerId);
  const devices = deviceIdentities(identity, update.deviceFingerprints);
  return { customer, devices, all: [customer, ...devices] };
}
