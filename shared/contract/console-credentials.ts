/**
 * How the console's session travels (POST /v1/console/session): the cookie's name, and the custom
 * header a cookie-authenticated change must carry (CSRF). Part of the contract: the OpenAPI
 * document names both, shared/auth/console-session.ts checks them.
 */
export const SESSION_COOKIE = 'console_session';
export const CONSOLE_REQUEST_HEADER = 'X-Console-Request';
