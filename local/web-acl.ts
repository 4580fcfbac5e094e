import type { IncomingHttpHeaders } from 'node:http';
import { SESSION_COOKIE_MARKER, WELL_FORMED_AUTHORIZATION_REGEX } from '../shared/auth/credential-format.ts';
import { AddressRateLimit, type AddressVerdict } from '../shared/http/address-rate-limit.ts';
import { FAILED_AUTHENTICATION_LIMIT } from '../shared/http/web-acl-rules.ts';

const wellFormedAuthorization = new RegExp(WELL_FORMED_AUTHORIZATION_REGEX);
/** Addresses remembered at once; more than a local server ever sees. */
const MAX_ADDRESSES = 10_000;

/**
 * The local stand-in for the web ACL's rule on failed authentication (lib/api-firewall.ts): requests
 * carrying no well-formed API key and no console session cookie are counted per client address, and
 * past the limit refused before any handler runs. A token bucket over the same window stands in for
 * WAF's count; the public routes are the adapter's to leave out.
 */
export class FailedAuthenticationLimit {
  private readonly limit = new AddressRateLimit({
    policy: 'failed-authentication',
    burst: FAILED_AUTHENTICATION_LIMIT.requests,
    windowSeconds: FAILED_AUTHENTICATION_LIMIT.windowSeconds,
    maxAddresses: MAX_ADDRESSES,
  });

  /** The verdict for a request the rule counts; undefined for one it does not. */
  check(headers: IncomingHttpHeaders, address: string, now: number): AddressVerdict | undefined {
    const authorization = headers.authorization?.toLowerCase();
    if (authorization !== undefined && wellFormedAuthorization.test(authorization)) return undefined;
    if (headers.cookie?.includes(SESSION_COOKIE_MARKER)) return undefined;
    return this.limit.take(address, now);
  }
}
