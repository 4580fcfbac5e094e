import { randomInt } from 'node:crypto';
import { expect } from 'vitest';
import { newMerchant, type TestApi } from './api.ts';
import { uid } from './fixtures.ts';

/**
 * Bodies for signup, login and account updates (docs/api.md); every option defaults to something
 * unique. E-mail local parts are pronounceable words, as people pick them: a random hex id would
 * (rightly) look machine-generated to the signup model.
 */
const CONSONANTS = 'bdfgklmnprstvz';
const VOWELS = 'aeiou';

export function humanWord(syllables = 3): string {
  let word = '';
  for (let i = 0; i < syllables; i++)
    word += CONSONANTS[randomInt(CONSONANTS.length)]! + VOWELS[randomInt(VOWELS.length)]!;
  return word;
}

export const humanEmail = (domain = 'example.com') => `${humanWord()}.${humanWord()}@${domain}`;

export interface SignupOptions {
  customerId?: string;
  /** A family's members share a surname under first names of their own (signals/household.ts). */
  firstName?: string;
  /** A farm's accounts carry names of their own; a family's share one (signals/household.ts). */
  lastName?: string;
  email?: string;
  device?: string;
  phone?: string;
  referrerID?: string;
  withAddress?: boolean;
  /** The signup's own time (ms); without it the service takes the time it receives the request. */
  timestamp?: number;
}

export function signupBody(options: SignupOptions = {}) {
  return {
    customerId: options.customerId ?? uid('cust'),
    firstName: options.firstName ?? 'Test',
    lastName: options.lastName ?? 'Person',
    username: options.email ?? humanEmail(),
    website: 'shop.example.com',
    ...(options.referrerID ? { referrerID: options.referrerID, referralID: 'spring-campaign' } : {}),
    contactInformation: [
      { contactType: 'EMail', address: options.email ?? humanEmail() },
      ...(options.phone ? [{ contactType: 'Phone', number: options.phone }] : []),
      ...(options.withAddress === false
        ? []
        : [
            {
              contactType: 'ContactAddress',
              addressType: 'Billing',
              address: { line1: `${humanWord()} Street 1`, postalCode: '10001', country: 'US' },
            },
          ]),
    ],
    deviceFingerprints: [{ deviceIdentifier: options.device ?? uid('device') }],
    ...(options.timestamp !== undefined ? { timestamp: String(options.timestamp) } : {}),
  };
}

export interface LoginOptions {
  providerCustomerId?: string;
  status?: '$success' | '$failure';
  device?: string;
  /** Put the fingerprint inside authMethod (as the contract lists it) instead of the top level. */
  deviceInAuthMethod?: boolean;
  mfaUsed?: boolean;
  /** The login's own time (ms); without it the service takes the time it receives the request. */
  timestamp?: number;
}

export function loginBody(options: LoginOptions = {}) {
  const device = [{ deviceIdentifier: options.device ?? uid('device') }];
  return {
    providerCustomerId: options.providerCustomerId ?? uid('cust'),
    loginStatus: options.status ?? '$success',
    email: humanEmail(),
    username: humanWord(),
    siteDomain: 'shop.example.com',
    authMethod: {
      type: 'password',
      ...(options.mfaUsed !== undefined ? { mfaUsed: options.mfaUsed } : {}),
      ...(options.mfaUsed ? { mfaMethod: 'app_authenticator' } : {}),
      ...(options.deviceInAuthMethod ? { deviceFingerprints: device } : {}),
    },
    ...(options.deviceInAuthMethod ? {} : { deviceFingerprints: device }),
    ...(options.timestamp !== undefined ? { timestamp: String(options.timestamp) } : {}),
  };
}

export interface AccountOptions {
  providerCustomerId?: string;
  changeType?: string;
  device?: string;
  previousValue?: string;
  newValue?: string;
  timestamp?: number;
}

export function accountBody(options: AccountOptions = {}) {
  return {
    providerCustomerId: options.providerCustomerId ?? uid('cust'),
    changeType: options.changeType ?? 'ADDRESS_ADD',
    ...(options.previousValue !== undefined ? { previousValue: options.previousValue } : {}),
    ...(options.newValue !== undefined ? { newValue: options.newValue } : {}),
    siteDomain: 'shop.example.com',
    deviceFingerprints: [{ deviceIdentifier: options.device ?? uid('device') }],
    timestamp: String(options.timestamp ?? Date.now() - 1_000),
  };
}

/** The decision of a signup, login or account response. */
// biome-ignore lint/suspicious/noExplicitAny: test assertions read arbitrary response shapes
export const decisionOf = (body: any) => body.Decisions[0].decisions[0];

/**
 * A fresh merchant with one account that signed up on `device` a month ago, approved: an owner's
 * established account. A signup just before the change would make the change look scripted.
 */
export async function accountWithDevice(api: TestApi, merchant: Parameters<typeof newMerchant>[0] = {}) {
  const { apiKey, merchantId } = await newMerchant(merchant);
  const device = uid('home-device');
  const body = signupBody({ device, timestamp: Date.now() - 30 * 86_400_000 });
  const response = await api.post('/v1/evaluate/signup', body, { apiKey });
  expect(decisionOf(response.body).decision).toBe('APPROVE');
  return { key: apiKey, merchantId, customerId: body.customerId, device };
}
