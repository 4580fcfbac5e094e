import { createHmac, randomBytes } from 'node:crypto';

/**
 * Signatures as payment providers make them: `Webhook-Signature: t=<unix s>,v1=<hex HMAC-SHA256 of
 * "<t>.<raw body>">`, one `v1=` per secret still valid (two during a rotation). The client package's
 * verifyWebhook checks the same format (client/src/webhooks.ts).
 */
const SECRET_PREFIX = 'whsec_';

export const newWebhookSecret = () => `${SECRET_PREFIX}${randomBytes(32).toString('hex')}`;

function signatureOf(secret: string, timestamp: number, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');
}

/** The headers of one attempt: the event id for dedupe, the time signed, every valid secret's signature. */
export function webhookHeaders(
  eventId: string,
  rawBody: string,
  secrets: readonly string[],
  now: number,
): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  const signatures = secrets.map((s) => `v1=${signatureOf(s, timestamp, rawBody)}`);
  return {
    'Content-Type': 'application/json',
    'Webhook-Id': eventId,
    'Webhook-Timestamp': String(timestamp),
    'Webhook-Signature': [`t=${timestamp}`, ...signatures].join(','),
  };
}
