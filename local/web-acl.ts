import type { IncomingHttpHeaders } from 'node:http';
import { SESSION_COOKIE_MARKER, WELL_FORMED_AUTHORIZATION_REGEX } from '../shared/auth/credential-format.ts';
import { AddressRateLimit, type AddressVerdict } from '../shared/http/address-rate-limit.ts';
import { ADDRESS_SHARE_OF_STAGE, FAILED_AUTHENTICATION_LIMIT } from '../shared/http/web-acl-rules.ts';

const wellFormedAuthorization = new RegExp(WELL_FORMED_AUTHORIZATION_REGEX);
/** Addresses remembered at once; more than a local server ever sees. */
const MAX_ADDRESSES = 10_000;
/** The local server stands for the sandbox stage: its throttle (lib/config.ts) sets the share rule. */
export const LOCAL_STAGE_RATE_LIMIT = 100;

/**
 * The local stand-in for the stage's web ACL (lib/api-firewall.ts), checked before any handler runs:
 * per client address, requests carrying no well-formed API key and no console session cookie past
 * FAILED_AUTHENTICATION_LIMIT, and any requests past its share of the stage's throttle. Token
 * buckets over the same windows stand in for WAF's counts; the public routes are the adapter's to
 * leave out. Undefined: the request passes.
 */
export class WebAclStandIn {
  private readonly failedAuthentication = new AddressRateLimit({
    policy: 'failed-authentication',
    burst: FAILED_AUTHENTICATION_LIMIT.requests,
    windowSeconds: FAILED_AUTHENTICATION_LIMIT.windowSeconds,
    maxAddresses: MAX_ADDRESSES,
  });
  private readonly shareOfStage = new AddressRateLimit({
    policy: 'share-of-stage',
    burst: LOCAL_STAGE_RATE_LIMIT * ADDRESS_SHARE_OF_STAGE.share * ADDRESS_SHARE_OF_STAGE.windowSeconds,
    windowSeconds: ADDRESS_SHARE_OF_STAGE.windowSeconds,
    maxAddresses: MAX_ADDRESSES,
  });

  /** The refusal of a request the web ACL would block, or undefined. */
  blocked(headers: IncomingHttpHeaders, address: string, now: number): AddressVerdict | undefined {
    const share = this.shareOfStage.take(address, now);
    if (!share.admitted) return share;
    const authorization = headers.authorization?.toLowerCase();
    if (authorization !== undefined && wellFormedAuthorization.test(authorization)) return undefined;
    if (headers.cookie?.includes(SESSION_COOKIE_MARKER)) return undefined;
    const failed = this.failedAuthentication.take(address, now);
    return failed.admitted ? undefined : failed;
  }
}
