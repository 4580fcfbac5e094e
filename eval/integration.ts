import { smallDomains } from './email-mix.ts';
import type { FieldShares, TrafficParams } from './params.ts';
import { stableChance } from './stable.ts';

/**
 * What the merchant's integration sends of an event the generator wrote: integrations send what they
 * have, so a share of orders carry no device and a share of signups and logins no `timestamp` (the
 * event is then live: the server's clock is its time); and the shoppers' e-mails sit at the domains
 * of the merchant's market (eval/email-mix.ts). Every choice is fixed by the event's own ids, so it
 * takes no random draw. At the nominal parameters the body goes out as written.
 */
export function asSent(path: string, body: unknown, params: TrafficParams): unknown {
  const fields = params.fields;
  let sent = body as Record<string, unknown>;
  if (path === '/v1/order' && dropped(fields.orderDevice, `device:${String(sent.providerOrderId)}`))
    sent = without(sent, 'deviceFingerprints');
  if (
    (path === '/v1/evaluate/signup' || path === '/v1/evaluate/login') &&
    dropped(
      fields.accountTimestamp,
      `timestamp:${String(sent.customerId ?? sent.providerCustomerId)}:${String(sent.timestamp)}`,
    )
  )
    sent = without(sent, 'timestamp');
  return params.emailDomains === 'large' ? sent : withDomains(sent, smallDomains);
}

/** Whether an optional field is left out: kept on `share` of the events, chosen by `key`. */
function dropped(share: FieldShares[keyof FieldShares], key: string): boolean {
  return share < 1 && stableChance(key) >= share;
}

function without(body: Record<string, unknown>, field: string): Record<string, unknown> {
  const { [field]: _left, ...rest } = body;
  return rest;
}

const EMAIL = /^([^@\s"]+)@([A-Za-z0-9.-]+\.[A-Za-z]{2,})$/;

/** Every e-mail address in the body moved to the domain `domainOf` gives it (the same for every event). */
function withDomains<T>(value: T, domainOf: (email: string) => string): T {
  if (typeof value === 'string') {
    const match = EMAIL.exec(value);
    return (match ? `${match[1]}@${domainOf(value)}` : value) as T;
  }
  if (Array.isArray(value)) return value.map((item) => withDomains(item, domainOf)) as T;
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, withDomains(item, domainOf)]),
    ) as T;
  return value;
}
