import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Environment } from '../../shared/config.ts';
import { assertMatchesContract } from './contract.ts';

/**
 * The local server (the real handlers behind the API Gateway adapter), started in this test process.
 * Every response it gives a suite is checked against openapi.json (test/support/contract.ts).
 */
export interface TestApi {
  baseUrl: string;
  post: (path: string, body: unknown, options?: RequestOptions) => Promise<ApiResponse>;
  request: (
    method: string,
    path: string,
    options?: RequestOptions & { rawBody?: string },
  ) => Promise<ApiResponse>;
  close: () => Promise<void>;
}

interface RequestOptions {
  apiKey?: string;
  headers?: Record<string, string>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: test assertions read arbitrary response shapes
  body: any;
  text: string;
}

/** `webAcl`: the stage's web ACL stand-in in front, as `npm start` runs it (local/web-acl.ts). */
export async function startTestApi(options: { webAcl?: boolean } = {}): Promise<TestApi> {
  const { createLocalServer } = await import('../../local/http-adapter.ts');
  const server = createLocalServer(options);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const request: TestApi['request'] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json', ...options.headers };
    if (options.apiKey) headers.Authorization = options.apiKey;
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body: options.rawBody });
    const text = await response.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    // Contract test: whatever the suite asserts next, the answer must be what openapi.json says.
    assertMatchesContract(method, path, response.status, body, response.headers);
    return { status: response.status, headers: response.headers, body, text };
  };
  return {
    baseUrl,
    request,
    post: (path, body, options) => request('POST', path, { ...options, rawBody: JSON.stringify(body) }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What `withTestApi` gives a test file once its `beforeAll` has run. */
export interface TestSuite {
  api: TestApi;
  apiKey: string;
  merchantId: string;
}

/** The local server and a fresh merchant for one test file: started before its tests, closed after. */
export function withTestApi(options: Parameters<typeof newMerchant>[0] = {}): TestSuite {
  const suite = {} as TestSuite;
  beforeAll(async () => {
    suite.api = await startTestApi();
    const merchant = await newMerchant(options);
    suite.apiKey = merchant.apiKey;
    suite.merchantId = merchant.merchantId;
  });
  afterAll(() => suite.api.close());
  return suite;
}

/**
 * The local server for a test file that runs on a table of its own (TABLE_NAME set in vi.hoisted):
 * the table is created first (with its stream when the suite feeds a lake from it); `alsoClose` (an
 * S3 stand-in) is closed with the server.
 */
export function withOwnTableApi(
  alsoClose?: { close: () => Promise<void> },
  table: { stream?: boolean } = {},
): { api: TestApi } {
  const suite = {} as { api: TestApi };
  beforeAll(async () => {
    const { createOwnTable } = await import('./table-snapshot.ts');
    await createOwnTable(table);
    suite.api = await startTestApi();
  });
  afterAll(async () => {
    await suite.api.close();
    await alsoClose?.close();
  });
  return suite;
}

/** A fresh merchant per test keeps tests isolated in the shared table. */
export async function newMerchant(
  options: { accountUpdatesEnabled?: boolean; environment?: Environment } = {},
) {
  const { createMerchant } = await import('../../shared/store/merchants.ts');
  return createMerchant({
    name: `test-${Math.random().toString(36).slice(2)}`,
    accountUpdatesEnabled: options.accountUpdatesEnabled ?? false,
    environment: options.environment ?? 'sandbox',
  });
}

/** Waits out the test run's API key cache (production keeps entries at most 30 s). */
export function waitForKeyCacheExpiry(): Promise<void> {
  const ttl = Number(process.env.API_KEY_CACHE_MS ?? 30_000);
  return new Promise((resolve) => setTimeout(resolve, ttl + 100));
}

/** The error envelope of docs/api.md: status, code, field, and `requestId` equal to the header. */
export function expectError(response: ApiResponse, status: number, code: string, field?: string): void {
  expect(response.status).toBe(status);
  expect(Object.keys(response.body)).toEqual(['error']);
  expect(response.body.error.code).toBe(code);
  expect(response.body.error.requestId).toBe(response.headers.get('x-request-id'));
  if (field !== undefined) expect(response.body.error.field).toBe(field);
}

/** Who the test suites are in the audit log when they revoke keys or suspend merchants directly. */
export const TEST_OPERATOR = { keyId: 'test_suite', keyName: 'test suite' };
