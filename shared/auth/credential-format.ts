import { KEY_PREFIX } from '../config.ts';
import { SESSION_COOKIE } from '../contract/console-credentials.ts';
import { SESSION_TOKEN_LENGTH } from '../store/console-sessions.ts';

/**
 * What a credential can look like, checked before anything is read: an API key is its environment's
 * prefix and 32 to 64 base62 characters (keys are issued with 40); a console session token is base62
 * of its fixed length. The web ACL in front of the stage (lib/api-firewall.ts) and its local stand-in
 * (local/failed-authentication-limit.ts) count requests whose credential cannot pass this check.
 */
const KEY_BODY = '{32,64}';
const prefixes = Object.values(KEY_PREFIX).join('|');

export const KEY_PATTERN = new RegExp(`^(${prefixes})[0-9A-Za-z]${KEY_BODY}$`);
export const SESSION_TOKEN_PATTERN = new RegExp(`^[0-9A-Za-z]{${SESSION_TOKEN_LENGTH}}$`);

/**
 * The Authorization header of a well-formed key as AWS WAF matches it: after WAF's LOWERCASE
 * transformation, with the optional `Bearer ` and the blanks authenticate() trims.
 */
export const WELL_FORMED_AUTHORIZATION_REGEX = `^\\s*(bearer\\s+)?(${prefixes})[0-9a-z]${KEY_BODY}\\s*$`;

/** A Cookie header carrying a console session: the cookie's name, as WAF matches it (contains). */
export const SESSION_COOKIE_MARKER = `${SESSION_COOKIE}=`;
