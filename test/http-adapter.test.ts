import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { withTestApi } from './support/api.ts';

/**
 * What Node's HTTP server refuses before any handler runs (oversized or malformed request heads)
 * is answered like everything else the local server says: the error envelope with X-Request-Id,
 * as API Gateway's own errors are in AWS (issue 17.5).
 */
const suite = withTestApi();

interface RawAnswer {
  status: number;
  headers: Map<string, string>;
  body: { error?: { code?: string; requestId?: string; message?: string } } | undefined;
}

/** Sends bytes as they are (no client normalizes or refuses them) and reads the one answer. */
function sendRaw(text: string): Promise<RawAnswer> {
  const { port } = new URL(suite.api.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(text));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const answer = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = new Map(
        lines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      let parsed: RawAnswer['body'];
      try {
        parsed = JSON.parse(body);
      } catch {
        parsed = undefined;
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: parsed });
    });
  });
}

function expectEnvelope(answer: RawAnswer, status: number, code: string) {
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toContain('application/json');
  const requestId = answer.headers.get('x-request-id');
  expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
  expect(answer.body?.error?.code).toBe(code);
  expect(typeof answer.body?.error?.message).toBe('string');
  expect(answer.body?.error?.requestId).toBe(requestId);
}

const post = (target: string, headers: string) =>
  `POST ${target} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n${headers}Content-Length: 2\r\nConnection: close\r\n\r\n{}`;

describe('the local server before the handler (issue 17.5)', () => {
  it('a 100 KB Authorization header: 431 request_header_fields_too_large with the envelope', async () => {
    expectEnvelope(
      await sendRaw(post('/v1/order', `Authorization: ${'k'.repeat(100_000)}\r\n`)),
      431,
      'request_header_fields_too_large',
    );
  });

  it('many headers past the limit together: 431', async () => {
    const headers = Array.from({ length: 40 }, (_, i) => `X-Pad-${i}: ${'p'.repeat(1000)}\r\n`).join('');
    expectEnvelope(await sendRaw(post('/v1/order', headers)), 431, 'request_header_fields_too_large');
  });

  it('a 100 KB URL: 414 uri_too_long with the envelope', async () => {
    expectEnvelope(
      await sendRaw(post(`/v1/order/dispute/${'o'.repeat(100_000)}`, `Authorization: ${suite.apiKey}\r\n`)),
      414,
      'uri_too_long',
    );
  });

  it.each([
    ['an invalid method', 'BL@H / HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['a header name with a space', 'POST /v1/order HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n'],
    [
      'an absolute-form target that is no URL',
      `POST http://[ HTTP/1.1\r\nHost: x\r\nAuthorization: ${'x'}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
    ],
  ])('%s: 400 invalid_request with the envelope', async (_label, text) => {
    expectEnvelope(await sendRaw(text), 400, 'invalid_request');
  });

  it('a request just under the limit still reaches the handler', async () => {
    const answer = await sendRaw(
      post('/v1/order', `Authorization: ${suite.apiKey}\r\nX-Pad: ${'p'.repeat(12_000)}\r\n`),
    );
    expectEnvelope(answer, 400, 'invalid_request');
    expect(answer.body?.error?.message).toMatch(/body|required|field/i);
  });
});
