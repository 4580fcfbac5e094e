import { existsSync, readFileSync } from 'node:fs';
import { extname, join, normalize, resolve } from 'node:path';
import type { APIGatewayProxyResult } from 'aws-lambda';

/**
 * The local stand-in for the console's S3 bucket behind CloudFront: files of dashboard/dist for any
 * GET outside /v1/, and index.html for the console's own paths (/reviews, /workflows?type=...), so a
 * bookmarked page opens. Same origin as the API, as in AWS, so the session cookie works.
 */
const DIST = resolve(import.meta.dirname, '..', 'dashboard', 'dist');
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
};
/** The same headers CloudFront's response-headers policy adds (lib/console-hosting.ts). */
export const CONSOLE_SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
};

export const isConsolePath = (method: string | undefined, pathname: string) =>
  (method === 'GET' || method === 'HEAD') && pathname !== '/v1' && !pathname.startsWith('/v1/');

export function consoleFile(pathname: string): APIGatewayProxyResult {
  if (!existsSync(join(DIST, 'index.html'))) {
    return {
      statusCode: 503,
      headers: { 'Content-Type': 'text/plain; charset=utf-8' },
      body: 'The console is not built: `npm start` builds it (node scripts/build-dashboard.ts).',
    };
  }
  const file = normalize(join(DIST, decodeURIComponent(pathname)));
  const asset = file.startsWith(DIST) && extname(file) !== '' && existsSync(file) ? file : undefined;
  if (!asset && pathname.startsWith('/assets/')) {
    return { statusCode: 404, headers: { 'Content-Type': 'text/plain' }, body: 'Not found' };
  }
  const path = asset ?? join(DIST, 'index.html');
  return {
    statusCode: 200,
    headers: {
      'Content-Type': TYPES[extname(path)] ?? 'application/octet-stream',
      // Hashed assets never change; index.html must be re-read to pick up a new build.
      'Cache-Control': asset?.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
      ...CONSOLE_SECURITY_HEADERS,
    },
    body: readFileSync(path).toString('base64'),
    isBase64Encoded: true,
  };
}
