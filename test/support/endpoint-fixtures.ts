import { ENDPOINT_DEFINITIONS, ENDPOINTS, type EndpointName } from '../../shared/contract/endpoints.ts';
import { accountBody, loginBody, signupBody } from './account-fixtures.ts';
import type { TestApi } from './api.ts';
import {
  countersOf,
  disputeEntry,
  emailOf,
  itemDisposition,
  type NamedIdentity,
  named,
  type OrderBody,
  placeOrder,
  returnBody,
} from './commerce.ts';
import { orderBody, uid } from './fixtures.ts';

/**
 * Valid requests for each of the seven endpoints, for the suites that treat every endpoint alike
 * (faults, fuzzing, bounds, tenant isolation, log hygiene) and for `npm run fuzz`.
 */
interface EndpointRequest {
  path: string;
  body: Record<string, unknown>;
}

export interface EndpointFixture {
  endpoint: EndpointName;
  /** A valid request naming the fixture's fixed references (one order, one return); unique ids. */
  validRequest: () => EndpointRequest;
}

export interface CountedRequest extends EndpointRequest {
  /** A counter this request moves by exactly one each time it is recorded. */
  probe: () => Promise<number>;
}

/** Endpoints whose calls honour an Idempotency-Key header (docs/decisions.md), as the registry says. */
export const IDEMPOTENCY_KEY_ENDPOINTS: readonly EndpointName[] = ENDPOINTS.filter(
  (name) => ENDPOINT_DEFINITIONS[name].idempotency.kind === 'idempotency-key-header',
);

const returnPath = (providerReturnId: string) =>
  `/v1/return/disposition/${encodeURIComponent(providerReturnId)}`;
const disputePath = (providerOrderId: string) => `/v1/order/dispute/${encodeURIComponent(providerOrderId)}`;

/** An order and its full return, recorded through the API for the merchant of `apiKey`. */
export async function returnedOrder(api: TestApi, apiKey: string) {
  const order = await placeOrder(api, apiKey);
  const ret = returnBody(order);
  const response = await api.post('/v1/return', ret, { apiKey });
  if (response.status !== 200) throw new Error(`return failed: ${response.status} ${response.text}`);
  return { order, providerReturnId: ret.providerReturnId };
}

/** Fixed references for the merchant of `apiKey` (which must have account updates enabled). */
export async function prepareFixtures(api: TestApi, apiKey: string): Promise<EndpointFixture[]> {
  const order = await placeOrder(api, apiKey);
  const { order: returned, providerReturnId } = await returnedOrder(api, apiKey);
  return [
    { endpoint: 'order', validRequest: () => ({ path: '/v1/order', body: orderBody() }) },
    // Cloned: a return body shares the order's identifier arrays, and callers reshape bodies.
    {
      endpoint: 'return',
      validRequest: () => ({ path: '/v1/return', body: structuredClone(returnBody(order)) }),
    },
    {
      endpoint: 'disposition',
      validRequest: () => ({
        path: returnPath(providerReturnId),
        body: structuredClone({ itemDispositions: [itemDisposition(returned, 0, 'NEW', 'RESTOCK')] }),
      }),
    },
    {
      endpoint: 'dispute',
      validRequest: () => ({ path: disputePath(order.providerOrderId), body: { dispute: [disputeEntry()] } }),
    },
    { endpoint: 'signup', validRequest: () => ({ path: '/v1/evaluate/signup', body: signupBody() }) },
    { endpoint: 'login', validRequest: () => ({ path: '/v1/evaluate/login', body: loginBody() }) },
    { endpoint: 'account', validRequest: () => ({ path: '/v1/evaluate/account', body: accountBody() }) },
  ];
}

/**
 * A fresh valid request whose effect can be counted: what it references is created first, so the
 * probe reads 0 before the request is recorded and 1 after.
 */
export async function countedRequest(
  endpoint: EndpointName,
  api: TestApi,
  apiKey: string,
  merchantId: string,
): Promise<CountedRequest> {
  const counter = async (ref: NamedIdentity, attribute: string) =>
    Number((await countersOf(merchantId, ref))[attribute] ?? 0);
  const deviceOfBody = (body: { deviceFingerprints?: { deviceIdentifier: string }[] }) =>
    named('device', body.deviceFingerprints![0]!.deviceIdentifier);
  switch (endpoint) {
    case 'order': {
      const body = orderBody();
      return { path: '/v1/order', body, probe: () => counter(deviceOfBody(body), 'c_ord') };
    }
    case 'return': {
      const body = returnBody(await placeOrder(api, apiKey));
      return { path: '/v1/return', body, probe: () => counter(deviceOfBody(body), 'c_ret') };
    }
    case 'disposition': {
      const { order, providerReturnId } = await returnedOrder(api, apiKey);
      const body = { itemDispositions: [itemDisposition(order, 0, 'EMPTY_BOX', 'REMOVE_SUSPECT_ABUSE')] };
      return { path: returnPath(providerReturnId), body, probe: () => counter(emailOf(order), 'c_abr') };
    }
    case 'dispute': {
      const order: OrderBody = await placeOrder(api, apiKey);
      // Lost but not for fraud: counted, and nothing goes on the block or watch lists.
      const body = { dispute: [disputeEntry({ disputeStatus: 'LOST', disputeReason: 'INR' })] };
      return {
        path: disputePath(order.providerOrderId),
        body,
        probe: () => counter(emailOf(order), 'c_cbL'),
      };
    }
    case 'signup': {
      const body = signupBody();
      return { path: '/v1/evaluate/signup', body, probe: () => counter(deviceOfBody(body), 'c_sgn') };
    }
    case 'login': {
      const body = loginBody();
      return { path: '/v1/evaluate/login', body, probe: () => counter(deviceOfBody(body), 'c_lgS') };
    }
    case 'account': {
      const body = accountBody({ providerCustomerId: uid('cust') });
      return {
        path: '/v1/evaluate/account',
        body,
        probe: () => counter(named('customer', body.providerCustomerId.trim()), 'c_acC'),
      };
    }
  }
}
