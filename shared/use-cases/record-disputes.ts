import type { ResponseOf } from '../contract/endpoints.ts';
import { ApiError, orderNotFound } from '../errors.ts';
import { parseIdentityIds } from '../identity/identity-ids.ts';
import { METRIC } from '../identity/metrics.ts';
import { chargebackEntries, isLostFraudDispute, listRulesOf } from '../lists/feedback-rules.ts';
import { receivedAt } from '../request-scope.ts';
import type { DisputeRequest } from '../schemas/dispute.ts';
import { keyString } from '../store/batch-get.ts';
import {
  type DisputeEffects,
  type DisputeEvent,
  type DisputeWrite,
  loadOrderDisputes,
  saveDisputes,
} from '../store/disputes.ts';
import { HistoryChanges } from '../store/identity-history.ts';
import { keys } from '../store/keys.ts';
import { MAX_TRANSACTION_ITEMS } from '../store/transact.ts';
import { applyDisputeEvents, sameEffect } from './dispute-state.ts';
import { answeredOncePerKey, type IdempotencyClaim } from './idempotency-key.ts';
import { feedbackListWrites } from './list-feedback.ts';
import { networkFeedbackWrites } from './network-feedback.ts';
import { retryOnStaleRecord } from './retry-stale.ts';
import type { Answer, EndpointCall } from './use-case.ts';

type DisputeResponse = ResponseOf<'dispute'>;

/**
 * POST /v1/order/dispute/{order-id}: every entry is validated before anything is written. Entries of
 * one dispute fold into one record write, written in the same transaction as its counter moves
 * (merged per identity); versioned per dispute so racing calls count once. An Idempotency-Key binds the key
 * to this request for 24 h (replay, or 409 for another request), recorded in that transaction.
 */
export const recordDisputes = answeredOncePerKey(recordDisputeEntries);

async function recordDisputeEntries(
  { body, merchantId, pathParameters, network }: EndpointCall<DisputeRequest>,
  claim: IdempotencyClaim<DisputeResponse> | undefined,
): Promise<Answer<DisputeResponse>> {
  const providerOrderId = pathParameters['order-id'];
  if (!providerOrderId) throw orderNotFound();
  const groups = new Map<string, { firstIndex: number; events: DisputeEvent[] }>();
  body.dispute.forEach(({ disputeId, ...event }, index) => {
    const group = groups.get(disputeId) ?? { firstIndex: index, events: [] };
    group.events.push(event);
    groups.set(disputeId, group);
  });

  return retryOnStaleRecord(async () => {
    const now = receivedAt();
    const profileKey = keys.merchantProfile(merchantId);
    const { order, disputes, items } = await loadOrderDisputes(
      merchantId,
      providerOrderId,
      [...groups.keys()],
      [profileKey, ...(claim ? [claim.key] : [])],
    );
    const prior = claim?.priorAnswer(items, now);
    if (prior) return prior;
    if (!order) throw orderNotFound();
    for (const [disputeId, group] of groups) {
      const stored = disputes.get(disputeId);
      if (stored && stored.providerOrderId !== order.providerOrderId) {
        throw new ApiError('duplicate_dispute_id', 'This disputeId belongs to a dispute on another order.', {
          field: `dispute[${group.firstIndex}].disputeId`,
        });
      }
    }

    const writes: DisputeWrite[] = [];
    for (const [disputeId, group] of groups) {
      const stored = disputes.get(disputeId);
      const next = applyDisputeEvents(
        stored,
        group.events,
        {
          merchantId,
          disputeId,
          providerOrderId: order.providerOrderId,
          serviceOrderId: order.serviceOrderId,
          currencyCode: order.currencyCode,
          createdAt: new Date(now).toISOString(),
        },
        order.identities,
        now,
      );
      if (!next) continue;
      const changes = new HistoryChanges();
      moveDisputeCounters(changes, stored?.applied, next.applied);
      writes.push({ record: next, expectedVersion: stored?.version, changes });
    }
    const response: DisputeResponse = {
      providerOrderId: order.providerOrderId,
      serviceOrderId: order.serviceOrderId,
      disputesRecorded: body.dispute.length,
    };
    // A member's lost fraud chargeback confirms abuse to the network; any other state takes it back.
    const alsoWrite = [
      ...networkFeedbackWrites(
        network,
        writes.map(({ record }) => ({
          merchantId,
          cause: `dispute:${record.disputeId}`,
          abuse:
            isLostFraudDispute(record.current) && record.applied.lost
              ? { kind: 'chargeback' as const, at: record.applied.lost.at }
              : undefined,
          identities: record.applied.identities,
        })),
        now,
      ),
      ...(claim ? [claim.recordPut(response, now)] : []),
    ];
    const counterMoves = new HistoryChanges();
    for (const write of writes) counterMoves.absorb(write.changes);
    const rules = listRulesOf(items.get(keyString(profileKey))?.listRules);
    const lists = await feedbackListWrites(
      merchantId,
      writes.map(({ record }) => ({
        listed: disputes.get(record.disputeId)?.applied.listed ?? [],
        target:
          isLostFraudDispute(record.current) && record.applied.lost
            ? chargebackEntries(
                {
                  providerOrderId: record.providerOrderId,
                  identities: parseIdentityIds(record.applied.identities),
                },
                {
                  disputeId: record.disputeId,
                  disputeReason: record.current.disputeReason,
                  lostAt: record.applied.lost.at,
                },
                now,
              )
            : [],
        mayAdd: rules.lostFraudChargeback,
      })),
      now,
      MAX_TRANSACTION_ITEMS - writes.length - counterMoves.identityCount - alsoWrite.length,
    );
    writes.forEach((write, i) => {
      const { history, items: listItems, listed } = lists[i]!;
      write.changes.absorb(history);
      write.listItems = listItems;
      const { listed: _before, ...applied } = write.record.applied;
      write.record.applied = listed.length > 0 ? { ...applied, listed } : applied;
    });
    await saveDisputes(merchantId, writes, now, alsoWrite);
    // Every entry already recorded exactly as sent: nothing was written, the answer is a replay.
    return { response, replayed: writes.length === 0 };
  });
}

/** Removes what the dispute's old state added and adds what its new state adds, where they differ. */
function moveDisputeCounters(
  changes: HistoryChanges,
  before: DisputeEffects | undefined,
  after: DisputeEffects,
): void {
  const oldRefs = parseIdentityIds(before?.identities ?? []);
  const newRefs = parseIdentityIds(after.identities);
  if (!sameEffect(before?.lost, after.lost)) {
    if (before?.lost) {
      changes.addEach(oldRefs, METRIC.lostChargebacks, -1, before.lost.at);
      changes.addEach(oldRefs, METRIC.lostChargebackValue, -before.lost.value, before.lost.at);
      if (before.lost.service) changes.addEach(oldRefs, METRIC.lostServiceDisputes, -1, before.lost.at);
    }
    if (after.lost) {
      changes.addEach(newRefs, METRIC.lostChargebacks, 1, after.lost.at);
      changes.addEach(newRefs, METRIC.lostChargebackValue, after.lost.value, after.lost.at);
      if (after.lost.service) changes.addEach(newRefs, METRIC.lostServiceDisputes, 1, after.lost.at);
    }
  }
  if (!sameEffect(before?.open, after.open)) {
    if (before?.open) changes.addEach(oldRefs, METRIC.openDisputes, -1, before.open.at);
    if (after.open) changes.addEach(newRefs, METRIC.openDisputes, 1, after.open.at);
  }
}
