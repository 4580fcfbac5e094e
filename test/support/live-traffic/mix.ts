import type { Delivery } from './delivery.ts';

/**
 * What a stretch of traffic holds, read back from the requests themselves: the counts a reader
 * needs to judge whether it looks like real honest traffic (and that the test prints).
 */
export interface TrafficMix {
  requests: number;
  byKind: Record<string, number>;
  /** The most signups that arrived in one clock minute. */
  peakSignupsPerMinute: number;
  signupsWithoutTimestamp: number;
  signupsWithoutPhone: number;
  signupsWithoutAddress: number;
  signupsWithoutDevice: number;
  /** Signups on the six biggest mail providers. */
  signupsOnBigProviders: number;
  /** The most signups one company or school domain had within one clock hour. */
  peakSignupsOfOneOrganisationPerHour: number;
  /** Devices behind more than one signup (family tablets). */
  devicesSharedBySignups: number;
  loginsWithoutTimestamp: number;
  failedLogins: number;
  ordersWithoutDevice: number;
  /** Events per honest behaviour (the last part of each cohort: checkout, typo, new-phone, ...). */
  byBehaviour: Record<string, number>;
}

const BIG_PROVIDERS = new Set([
  'gmail.com',
  'yahoo.com',
  'icloud.com',
  'outlook.com',
  'hotmail.com',
  'aol.com',
]);
/** Domains of people's own mailboxes (the rest are companies and schools). */
const ISP_PATTERN =
  /^(gmail|yahoo|icloud|outlook|hotmail|aol|comcast|att|sbcglobal|verizon|cox|charter|bellsouth|optonline|earthlink|frontier|windstream|live|msn|me|ymail|protonmail|mail|gmx|zoho|fastmail|shaw|rogers|sympatico|btinternet|sky|web|t-online|orange|free)\./;

interface SignupShape {
  contactInformation: { contactType: string; address?: unknown }[];
  deviceFingerprints?: { deviceIdentifier: string }[];
  timestamp?: string;
}

export function trafficMix(deliveries: readonly Delivery[]): TrafficMix {
  const byKind: Record<string, number> = {};
  const byBehaviour: Record<string, number> = {};
  const signupsPerMinute = new Map<number, number>();
  const organisationHours = new Map<string, number>();
  const devices = new Map<string, number>();
  const mix = {
    signupsWithoutTimestamp: 0,
    signupsWithoutPhone: 0,
    signupsWithoutAddress: 0,
    signupsWithoutDevice: 0,
    signupsOnBigProviders: 0,
    loginsWithoutTimestamp: 0,
    failedLogins: 0,
    ordersWithoutDevice: 0,
  };
  for (const d of deliveries) {
    byKind[d.kind] = (byKind[d.kind] ?? 0) + 1;
    const behaviour = d.cohort.split(':').at(-1)!;
    byBehaviour[behaviour] = (byBehaviour[behaviour] ?? 0) + 1;
    const body = d.body as Partial<SignupShape> & { loginStatus?: string };
    if (d.kind === 'signup') {
      const contacts = body.contactInformation ?? [];
      const email = String(contacts.find((c) => c.contactType === 'EMail')?.address ?? '');
      const domain = email.split('@')[1] ?? '';
      const minute = Math.floor(d.at / 60_000);
      signupsPerMinute.set(minute, (signupsPerMinute.get(minute) ?? 0) + 1);
      if (body.timestamp === undefined) mix.signupsWithoutTimestamp++;
      if (!contacts.some((c) => c.contactType === 'Phone')) mix.signupsWithoutPhone++;
      if (!contacts.some((c) => c.contactType === 'ContactAddress')) mix.signupsWithoutAddress++;
      if (BIG_PROVIDERS.has(domain)) mix.signupsOnBigProviders++;
      if (!ISP_PATTERN.test(domain)) {
        const key = `${domain}@${Math.floor(minute / 60)}`;
        organisationHours.set(key, (organisationHours.get(key) ?? 0) + 1);
      }
      const device = body.deviceFingerprints?.[0]?.deviceIdentifier;
      if (device) devices.set(device, (devices.get(device) ?? 0) + 1);
      else mix.signupsWithoutDevice++;
    } else if (d.kind === 'login') {
      if (body.timestamp === undefined) mix.loginsWithoutTimestamp++;
      if (body.loginStatus === '$failure') mix.failedLogins++;
    } else if (d.kind === 'order' && body.deviceFingerprints === undefined) mix.ordersWithoutDevice++;
  }
  return {
    requests: deliveries.length,
    byKind,
    peakSignupsPerMinute: Math.max(0, ...signupsPerMinute.values()),
    ...mix,
    peakSignupsOfOneOrganisationPerHour: Math.max(0, ...organisationHours.values()),
    devicesSharedBySignups: [...devices.values()].filter((n) => n > 1).length,
    byBehaviour,
  };
}
