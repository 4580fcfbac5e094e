import { describe, expect, it } from 'vitest';
import { lambdaContext } from '../local/api-gateway-event.ts';
import { expectError, withTestApi } from './support/api.ts';
import { disputeEntry, itemDisposition, placeOrder } from './support/commerce.ts';
import { returnedOrder } from './support/endpoint-fixtures.ts';

/**
 * The ids in the path (`{order-id}`, `{return-id}`) are read as strictly as body ids: a segment whose
 * percent-encoding does not decode to UTF-8 text is 400 `invalid_request` naming it, one longer than
 * an id may be is 422; never a 5xx, always the envelope with X-Request-Id (issue 17.4).
 */
const suite = withTestApi();

const disputeBody = () => ({ dispute: [disputeEntry()] });
const dispositionBody = () => ({
  itemDispositions: [
    { identifierType: 'SKU', identifier: 'x', returnedItemCondition: 'NEW', dispositionOutcome: 'RESTOCK' },
  ],
});
const MALFORMED = ['%', '%E0%A4%A', '%ZZ', 'abc%C0%AF', '%ED%A0%80', 'a%2', '%FF'];
const ROUTES = [
  ['dispute', '/v1/order/dispute/', 'order-id', disputeBody],
  ['disposition', '/v1/return/disposition/', 'return-id', dispositionBody],
] as const;

describe('malformed percent-encoding in a path id', () => {
  it.each(
    ROUTES.flatMap(([name, prefix, param, body]) =>
      MALFORMED.map((id) => [name, id, prefix, param, body] as const),
    ),
  )(
    '%s %s: POST is 400 invalid_request naming the path id, GET is 405',
    async (_name, id, prefix, param, body) => {
      const post = await suite.api.request('POST', `${prefix}${id}`, {
        apiKey: suite.apiKey,
        rawBody: JSON.stringify(body()),
      });
      expectError(post, 400, 'invalid_request', param);
      const get = await suite.api.request('GET', `${prefix}${id}`, { apiKey: suite.apiKey });
      expectError(get, 405, 'method_not_allowed');
      // Authentication still comes first.
      expectError(
        await suite.api.request('POST', `${prefix}${id}`, { rawBody: '{}' }),
        401,
        'unauthenticated',
      );
    },
  );

  it('an id past 256 characters is 422 naming the path id, not a store failure', async () => {
    const long = 'x'.repeat(3000);
    expectError(
      await suite.api.post(`/v1/order/dispute/${long}`, disputeBody(), { apiKey: suite.apiKey }),
      422,
      'unprocessable_entity',
      'order-id',
    );
    expectError(
      await suite.api.post(`/v1/return/disposition/${long}`, dispositionBody(), { apiKey: suite.apiKey }),
      422,
      'unprocessable_entity',
      'return-id',
    );
  });

  it('well-formed encodings still name the record: %25, %2F, UTF-8', async () => {
    for (const providerOrderId of [`100%-${Date.now()}`, `a/b-${Date.now()}`, `ü-${Date.now()}`]) {
      const order = await placeOrder(suite.api, suite.apiKey, { providerOrderId });
      const response = await suite.api.post(
        `/v1/order/dispute/${encodeURIComponent(order.providerOrderId)}`,
        disputeBody(),
        { apiKey: suite.apiKey },
      );
      expect(response.status, response.text).toBe(200);
      expect(response.body.providerOrderId).toBe(providerOrderId);
    }
    const { order, providerReturnId } = await returnedOrder(suite.api, suite.apiKey);
    const response = await suite.api.post(
      `/v1/return/disposition/${encodeURIComponent(providerReturnId)}`,
      { itemDispositions: [itemDisposition(order, 0, 'NEW', 'RESTOCK')] },
      { apiKey: suite.apiKey },
    );
    expect(response.status, response.text).toBe(200);
  });
});

describe('whatever API Gateway puts in pathParameters', () => {
  // REST APIs pass `path` percent-encoded as sent; what they put in pathParameters for a segment
  // that does not decode is not documented, so the handler is given each plausible variant.
  it.each([
    ['the raw segment', '%ZZ', '/v1/order/dispute/%ZZ', 400],
    ['a decoded lone surrogate', 'X\ud800', '/v1/order/dispute/X%ED%A0%80', 400],
    ['a replacement character', 'X\ufffd', '/v1/order/dispute/X%ED%A0%80', 400],
    ['a lone surrogate with no path to read', 'X\ud800', undefined, 422],
  ] as const)('%s: answered with the envelope, never a 5xx', async (_label, parameter, path, status) => {
    const { handler } = await import('../functions/dispute.ts');
    const response = await handler(
      {
        resource: '/v1/order/dispute/{order-id}',
        path: path as string,
        httpMethod: 'POST',
        headers: { Authorization: suite.apiKey, 'Content-Type': 'application/json' },
        multiValueHeaders: {},
        queryStringParameters: null,
        multiValueQueryStringParameters: null,
        pathParameters: { 'order-id': parameter },
        stageVariables: null,
        body: JSON.stringify(disputeBody()),
        isBase64Encoded: false,
        // biome-ignore lint/suspicious/noExplicitAny: the handler reads only the request id here
        requestContext: { requestId: `req-${Date.now()}` } as any,
      },
      lambdaContext('dispute'),
    );
    expect(response.statusCode, response.body).toBe(status);
    const body = JSON.parse(response.body);
    expect(body.error.field).toBe('order-id');
    expect(body.error.requestId).toBe(response.headers?.['X-Request-Id']);
  });
});
