import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { AttemptResult } from './schedule.ts';
import { isForbiddenAddress, type UrlPolicy, webhookUrlProblem } from './url-policy.ts';

/** How much of a receiver's answer is kept as the attempt's error text. */
const MAX_ERROR_TEXT = 200;

/**
 * One HTTPS POST of a signed body. The connection goes only to an address the policy allows: the
 * DNS answer is checked inside the socket's own lookup, so a name re-pointed between a check and the
 * connect (DNS rebinding) cannot reach a private address. Never throws: every failure is a result.
 */
export function postWebhook(input: {
  url: string;
  body: string;
  headers: Record<string, string>;
  policy: UrlPolicy;
  timeoutMs: number;
}): Promise<AttemptResult> {
  const problem = webhookUrlProblem(input.url, input.policy);
  if (problem) return Promise.resolve({ ok: false, error: problem });
  const url = new URL(input.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const request = send(
      url,
      {
        method: 'POST',
        headers: { ...input.headers, 'Content-Length': Buffer.byteLength(input.body) },
        timeout: input.timeoutMs,
        lookup: input.policy === 'production' ? allowedLookup : undefined,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (text.length < MAX_ERROR_TEXT) text += chunk;
        });
        response.on('end', () =>
          resolve(
            status >= 200 && status < 300
              ? { ok: true, status }
              : {
                  ok: false,
                  status,
                  error: `HTTP ${status}${text ? `: ${text.slice(0, MAX_ERROR_TEXT)}` : ''}`,
                },
          ),
        );
        response.on('error', (error) => resolve({ ok: false, status, error: error.message }));
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${input.timeoutMs} ms`)));
    request.on('error', (error) => resolve({ ok: false, error: error.message }));
    request.end(input.body);
  });
}

/** dns.lookup, refusing the connection when any address of the answer is forbidden. */
export const allowedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const forbidden = addresses.find((a) => isForbiddenAddress(a.address));
    if (forbidden) {
      return callback(
        Object.assign(new Error(`${hostname} resolves to a forbidden address (${forbidden.address})`), {
          code: 'EFORBIDDENADDRESS',
        }),
        '',
        0,
      );
    }
    if (options.all) return callback(null, addresses);
    const [first] = addresses;
    if (!first) return callback(new Error(`${hostname} has no address`), '', 0);
    callback(null, first.address, first.family);
  });
};
