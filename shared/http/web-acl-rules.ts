/**
 * The web ACL in front of the API stage (lib/api-firewall.ts), as numbers the local server's stand-in
 * (local/web-acl.ts) reads too.
 *
 * WAF sees requests, never answers, so "failed authentication" is what it can tell from a request:
 * no well-formed credential (shared/auth/credential-format.ts), which the functions answer 401
 * without reading anything. A well-formed key no merchant has passes this rule; the functions'
 * negative cache and the share of the stage one address may take bound those.
 */
export const FAILED_AUTHENTICATION_LIMIT = {
  /** Requests without a well-formed credential one address may send per window before it is blocked. */
  requests: 100,
  windowSeconds: 60,
};

/** One address may take at most this share of the stage's throttle, counted over five minutes. */
export const ADDRESS_SHARE_OF_STAGE = { share: 0.5, windowSeconds: 300 };

/** The message of the 429 a blocked request gets (API Gateway's WAF_FILTERED response). */
export const WEB_ACL_BLOCKED_MESSAGE =
  'Too many requests from this address; retry after the number of seconds in Retry-After.';
