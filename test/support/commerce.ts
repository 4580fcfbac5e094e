import { identityDigests } from '../../shared/digests/identity-digests.ts';
import {
  type IdentityKind,
  type IdentityRef,
  normalizeCard,
  normalizeEmail,
} from '../../shared/identity/identities.ts';
import { batchGetItems } from '../../shared/store/batch-get.ts';
import { identityKey } from '../../shared/store/identity-history.ts';
import { findApiKeyByHash, hashApiKey } from '../../shared/store/merchants.ts';
import type { TestApi } from './api.ts';
import { type OrderOptions, orderBody, uid } from './fixtures.ts';

/** Fixtures and probes for returns, dispositions and disputes (docs/api.md). */
export type OrderBody = ReturnType<typeof orderBody>;

export interface ReturnOptions {
  providerReturnId?: string;
  status?: string;
  refundMode?: string;
  device?: string;
  timestamp?: number;
  /** Lines to return: index of the order's line item and quantity (default: every line, one unit). */
  lines?: { line: number; quantity?: number }[];
}

/** A valid return body (docs/api.md) returning lines of `order`. */
export function returnBody(order: OrderBody, options: ReturnOptions = {}) {
  const lines: { line: number; quantity?: number }[] =
    options.lines ?? order.lineItems.map((_, line) => ({ line }));
  return {
    providerOrderId: order.providerOrderId,
    providerReturnId: options.providerReturnId ?? uid('return'),
    status: options.status ?? 'REQUESTED',
    reason: 'Changed my mind',
    returnMethod: { returnMethod: 'Drop-Off' },
    refundMode: { refundMode: options.refundMode ?? 'ORIGINAL_PAYMENT' },
    returnedLineItems: lines.map(({ line, quantity }) => ({
      lineItem: { identifiers: order.lineItems[line]!.identifiers },
      quantity: String(quantity ?? 1),
      reason: 'Did not fit',
    })),
    deviceFingerprints: [{ deviceIdentifier: options.device ?? uid('return-device') }],
    timestamp: String(options.timestamp ?? Date.now() - 1_000),
  };
}

/** A disposition entry for the order's line `line` (docs/api.md). */
export function itemDisposition(
  order: OrderBody,
  line: number,
  returnedItemCondition: string,
  dispositionOutcome: string,
) {
  const [first] = order.lineItems[line]!.identifiers;
  return {
    identifierType: first!.identifierType,
    identifier: first!.identifier,
    returnedItemCondition,
    dispositionOutcome,
  };
}

export function disputeEntry(
  overrides: Partial<{
    disputeId: string;
    disputeType: string;
    disputeReason: string;
    disputeStatus: string;
    disputeAmount: number;
    timestamp: number;
  }> = {},
) {
  return {
    disputeId: uid('dispute'),
    disputeType: 'CHARGEBACK',
    disputeReason: 'FRAUD',
    disputeStatus: 'OPEN',
    disputeAmount: 49.99,
    timestamp: Date.now() - 10_000,
    ...overrides,
  };
}

/** Places an order (asserting success) and returns its body. */
export async function placeOrder(api: TestApi, apiKey: string, options: OrderOptions = {}) {
  const body = orderBody(options);
  const response = await api.post('/v1/order', body, { apiKey });
  if (response.status !== 200) throw new Error(`order failed: ${response.status} ${response.text}`);
  return body;
}

export async function merchantIdOf(apiKey: string): Promise<string> {
  return (await findApiKeyByHash(hashApiKey(apiKey)))!.merchantId;
}

/** An identity as the events name it, normalised; each merchant stores it under its own digest. */
export interface NamedIdentity {
  kind: IdentityKind;
  normalized: string;
}
export const named = (kind: IdentityKind, normalized: string): NamedIdentity => ({ kind, normalized });

export const emailOf = (order: OrderBody) =>
  named('email', normalizeEmail(order.customer.contactInformation[0]!.address as string));
export const cardOf = (order: OrderBody) => named('card', normalizeCard(order.paymentInfo[0]!)!);
export const deviceOf = (order: OrderBody) => named('device', order.deviceFingerprints[0]!.deviceIdentifier);

/** The identity as `merchantId` stores it (with its network key when `network`). */
export async function storedRef(
  merchantId: string,
  identity: NamedIdentity,
  options: { network?: boolean } = {},
): Promise<IdentityRef> {
  return (await identityDigests(merchantId, options))(identity.kind, identity.normalized);
}

/** The stored counter item of one identity at `merchantId` (lifetime totals are `c_<metric>`). */
export async function countersOf(
  merchantId: string,
  identity: NamedIdentity,
): Promise<Record<string, unknown>> {
  const key = identityKey(merchantId, await storedRef(merchantId, identity));
  const [item] = [...(await batchGetItems([key])).values()];
  return item ?? {};
}
