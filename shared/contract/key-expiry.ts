/**
 * The response header a key carries in its last days (shared/auth/authenticate.ts sets it; the
 * OpenAPI document declares it; docs/api.md, Calling it): its expiry, as an ISO time.
 */
export const KEY_EXPIRY_HEADER = 'Api-Key-Expires';

/** How long before its expiry a key's answers carry KEY_EXPIRY_HEADER. */
export const KEY_EXPIRY_WARNING_MS = 14 * 86_400_000;
