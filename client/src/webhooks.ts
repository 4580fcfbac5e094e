/**
 * Verifying a webhook from the abuse-decision API: `Webhook-Signature: t=<unix s>,v1=<hex>[,v1=...]`
 * where each v1 is HMAC-SHA256 of "<t>.<raw body>" under one of the endpoint's secrets (two during
 * a rotation). Uses Web Crypto, so it runs in Node 20+, Deno, Bun, workers and browsers.
 */
export interface WebhookEvent {
  /** The event id, also sent as `Webhook-Id`: the same on every retry, so dedupe on it. */
  id: string;
  type: 'decision.created' | 'review.created' | 'review.resolved' | 'webhook.test';
  createdAt: string;
  apiVersion: 'v1';
  data: Record<string, unknown>;
}

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** How far the signed time may be from now, either way (default 300 s). */
  toleranceSeconds?: number;
  /** Now, in milliseconds (tests). */
  now?: number;
}

/**
 * Returns the event when `rawBody` (the exact bytes received, before any JSON parsing) carries a
 * valid signature by `secret` made within the tolerance; otherwise throws WebhookVerificationError.
 */
export async function verifyWebhook(
  rawBody: string,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyOptions = {},
): Promise<WebhookEvent> {
  const signature = header(headers, 'webhook-signature');
  if (!signature) throw new WebhookVerificationError('missing Webhook-Signature header');
  const parts = signature.split(',').map((part) => part.trim().split('='));
  const t = Number(parts.find(([name]) => name === 't')?.[1]);
  const candidates = parts.filter(([name]) => name === 'v1').map(([, value]) => value ?? '');
  if (!Number.isInteger(t) || candidates.length === 0) {
    throw new WebhookVerificationError('malformed Webhook-Signature header');
  }
  const tolerance = options.toleranceSeconds ?? 300;
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
  if (Math.abs(nowSeconds - t) > tolerance) {
    throw new WebhookVerificationError(`timestamp outside the ${tolerance} s tolerance`);
  }
  const expected = await hmacHex(secret, `${t}.${rawBody}`);
  if (!candidates.some((candidate) => constantTimeEqual(candidate, expected))) {
    throw new WebhookVerificationError('no signature matches the secret');
  }
  let event: WebhookEvent;
  try {
    event = JSON.parse(rawBody) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('the body is not JSON');
  }
  const id = header(headers, 'webhook-id');
  if (id !== undefined && id !== event.id)
    throw new WebhookVerificationError('Webhook-Id does not match the body');
  return event;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(entry) ? entry[0] : entry;
}

async function hmacHex(secret: string, message: string): Promise<string> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(message)));
  return Array.from(mac, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Compares without stopping at the first difference, so timing does not reveal the signature. */
function constantTimeEqual(a: string, b: string): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) difference |= (a.charCodeAt(i) || 0) ^ b.charCodeAt(i);
  return difference === 0;
}
