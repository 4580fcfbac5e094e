import type { ResponseOf } from '../contract/endpoints.ts';
import { ApiError, returnNotFound } from '../errors.ts';
import type { IdentityRef } from '../identity/identities.ts';
import { parseIdentityIds } from '../identity/identity-ids.ts';
import { METRIC } from '../identity/metrics.ts';
import { abusiveDispositionCause, dispositionEntries, listRulesOf } from '../lists/feedback-rules.ts';
import { receivedAt } from '../request-scope.ts';
import type { DispositionRequest, ItemDisposition } from '../schemas/disposition.ts';
import type { NoteCause } from '../scoring/list-marker.ts';
import { keyString } from '../store/batch-get.ts';
import { canonicalJson } from '../store/canonical.ts';
import {
  type DispositionEffects,
  type DispositionTexts,
  loadReturnDispositions,
  MAX_DISPOSITIONS_BYTES,
  type StoredDisposition,
  type StoredDispositions,
  saveDispositions,
  splitDispositionText,
} from '../store/dispositions.ts';
import { HistoryChanges, loadSnapshots } from '../store/identity-history.ts';
import { keys } from '../store/keys.ts';
import type { ReturnRecord } from '../store/returns.ts';
import { MAX_TRANSACTION_ITEMS } from '../store/transact.ts';
import { answeredOncePerKey, type IdempotencyClaim } from './idempotency-key.ts';
import { feedbackListWrites } from './list-feedback.ts';
import { networkFeedbackWrites } from './network-feedback.ts';
import { retryOnStaleRecord } from './retry-stale.ts';
import type { Answer, EndpointCall } from './use-case.ts';

type DispositionResponse = ResponseOf<'disposition'>;

/**
 * POST /v1/return/disposition/{return-id}: every item must name an item of the return, or nothing
 * is recorded. Each item's disposition replaces the previous one and moves the return's identity
 * counters by the difference; the dispositions record is versioned so racing calls count once.
 * An Idempotency-Key binds the key to this request for 24 h (replay, or 409 for another request).
 */
export const recordDispositions = answeredOncePerKey(recordItemDispositions);

async function recordItemDispositions(
  { body, merchantId, pathParameters, network }: EndpointCall<DispositionRequest>,
  claim: IdempotencyClaim<DispositionResponse> | undefined,
): Promise<Answer<DispositionResponse>> {
  const providerReturnId = pathParameters['return-id'];
  if (!providerReturnId) throw returnNotFound();
  return retryOnStaleRecord(async () => {
    const now = receivedAt();
    const profileKey = keys.merchantProfile(merchantId);
    const { stored, dispositions, texts, items } = await loadReturnDispositions(
      merchantId,
      providerReturnId,
      now,
      [profileKey, ...(claim ? [claim.key] : [])],
    );
    const prior = claim?.priorAnswer(items, now);
    if (prior) return prior;
    if (!stored) throw returnNotFound();
    const lines = linesOf(stored, body.itemDispositions);
    const previous = dispositions?.byLine ?? {};
    const byLine: Record<string, StoredDisposition> = { ...previous };
    const textByLine: DispositionTexts = { ...texts };
    const changes = new HistoryChanges();
    const identities = parseIdentityIds(stored.identities);
    let heavySeen = await heavilyUsedElsewhere(stored, previous, body.itemDispositions, lines, now);
    let changed = false;
    let newAbuse = false;

    body.itemDispositions.forEach((item, index) => {
      const line = lines[index]!;
      const before = previous[line];
      if (before && sameDisposition(before, texts[line], item)) {
        if (before.effects.heavilyUsedAt !== undefined) heavySeen++;
        return;
      }
      // Same verdict with other details (notes, images): the counters stay as they were.
      const effects =
        before && sameVerdict(before, item)
          ? before.effects
          : effectsOf(item, before?.effects, heavySeen, now);
      if (effects.heavilyUsedAt !== undefined) heavySeen++;
      moveCounter(changes, identities, METRIC.abusiveReturns, before?.effects.abusiveAt, effects.abusiveAt);
      moveCounter(
        changes,
        identities,
        METRIC.heavilyUsedReturns,
        before?.effects.heavilyUsedAt,
        effects.heavilyUsedAt,
      );
      const { fields, text } = splitDispositionText(item);
      byLine[line] = { ...fields, recordedAt: new Date(now).toISOString(), effects };
      if (text) textByLine[line] = { ...text, writtenAt: new Date(now).toISOString() };
      else delete textByLine[line];
      changed = true;
      if (abusiveDispositionCause(item) && !(before && abusiveDispositionCause(before))) newAbuse = true;
    });

    const response: DispositionResponse = {
      providerReturnId: stored.providerReturnId,
      serviceReturnId: stored.serviceReturnId,
      dispositionsRecorded: body.itemDispositions.length,
      modelImpact: 'applied',
    };
    const idempotencyRecord = claim ? [claim.recordPut(response, now)] : [];
    if (changed) {
      // Checked before anything is written (list entries may be written ahead of the record).
      if (Buffer.byteLength(JSON.stringify([byLine, textByLine])) > MAX_DISPOSITIONS_BYTES) {
        throw new ApiError(
          'unprocessable_entity',
          'The dispositions of this return would exceed the stored size limit; send fewer images or shorter notes.',
          { field: 'itemDispositions' },
        );
      }
      const abusiveAt = Object.values(byLine).flatMap((d) =>
        d.effects.abusiveAt !== undefined ? [d.effects.abusiveAt] : [],
      );
      // A member's abusive verdicts on the return confirm abuse to the network, once per return.
      const alsoWrite = [
        ...networkFeedbackWrites(
          network,
          [
            {
              merchantId,
              cause: `return:${providerReturnId}`,
              abuse: abusiveAt.length > 0 ? { kind: 'disposition', at: Math.min(...abusiveAt) } : undefined,
              identities: stored.identities,
            },
          ],
          now,
        ),
        ...idempotencyRecord,
      ];
      const [lists] = await feedbackListWrites(
        merchantId,
        [
          {
            listed: dispositions?.listed ?? [],
            target: listTarget(stored, byLine, now),
            // Only a new abusive verdict is new evidence: a legitimate review may have taken the
            // entries off since the last one.
            mayAdd: newAbuse && listRulesOf(items.get(keyString(profileKey))?.listRules).abusiveDisposition,
          },
        ],
        now,
        // The record and its free-text item (written, or deleted).
        MAX_TRANSACTION_ITEMS - 2 - changes.identityCount - alsoWrite.length,
      );
      changes.absorb(lists!.history);
      const record: StoredDispositions = {
        merchantId,
        providerReturnId,
        byLine,
        ...(lists!.listed.length > 0 ? { listed: lists!.listed } : {}),
        version: (dispositions?.version ?? 0) + 1,
        updatedAt: new Date(now).toISOString(),
      };
      await saveDispositions(
        record,
        dispositions?.version,
        { texts: textByLine, hadText: Object.keys(texts).length > 0 },
        changes,
        now,
        [...lists!.items, ...alsoWrite],
      );
    } else if (claim) {
      await claim.recordAlone(response, now);
    }
    // Every entry already recorded exactly as sent: nothing was written, the answer is a replay.
    return { response, replayed: !changed };
  });
}

/** The returned line a disposition names, or -1 when no item of the return has its identifier. */
export function returnedLineOf(
  stored: ReturnRecord,
  item: Pick<ItemDisposition, 'identifierType' | 'identifier'>,
) {
  return stored.items.findIndex((returned) =>
    returned.identifiers.some(
      (id) => id.identifierType === item.identifierType && id.identifier === item.identifier,
    ),
  );
}

/** The returned line each disposition names (by index), checked before anything is recorded. */
function linesOf(stored: ReturnRecord, items: readonly ItemDisposition[]): number[] {
  const named = new Map<number, number>();
  return items.map((item, index) => {
    const line = returnedLineOf(stored, item);
    if (line < 0) {
      throw new ApiError('item_not_on_return', 'No item of this return has this identifier.', {
        field: `itemDispositions[${index}].identifier`,
      });
    }
    const earlier = named.get(line);
    if (earlier !== undefined) {
      throw new ApiError(
        'unprocessable_entity',
        `Names the same returned item as itemDispositions[${earlier}]; send one disposition per item.`,
        { field: `itemDispositions[${index}]` },
      );
    }
    named.set(line, index);
    return line;
  });
}

/**
 * HEAVILY_USED dispositions the customer (order e-mail and card) already has outside the items this
 * request re-decides. Read only when the request carries a new HEAVILY_USED verdict.
 */
async function heavilyUsedElsewhere(
  stored: ReturnRecord,
  previous: Record<string, StoredDisposition>,
  items: readonly ItemDisposition[],
  lines: readonly number[],
  now: number,
): Promise<number> {
  const heavyOnThisReturn = (keep: (line: string) => boolean) =>
    Object.entries(previous).filter(([line, d]) => keep(line) && d.effects.heavilyUsedAt !== undefined)
      .length;
  const redecided = new Set(lines.map(String));
  const untouched = heavyOnThisReturn((line) => !redecided.has(line));
  const needsHistory = items.some((item, index) => {
    const before = previous[lines[index]!];
    return item.returnedItemCondition === 'HEAVILY_USED' && !(before && sameVerdict(before, item));
  });
  if (!needsHistory) return untouched;
  const customer = parseIdentityIds(stored.identities).filter((r) => r.kind === 'email' || r.kind === 'card');
  const snapshots = await loadSnapshots(stored.merchantId, customer, now);
  const onCustomer = Math.max(0, ...snapshots.map((s) => s.count(METRIC.heavilyUsedReturns).lifetime));
  // The counters already hold this return's own HEAVILY_USED items; count those from the record.
  return Math.max(0, onCustomer - heavyOnThisReturn(() => true)) + untouched;
}

/**
 * Abuse verdict of one item: EMPTY_BOX, COUNTERFEIT_ITEM, REMOVE_SUSPECT_ABUSE, or a HEAVILY_USED
 * from a customer who already had one. A verdict that stays the same keeps its original time.
 */
function effectsOf(
  item: ItemDisposition,
  before: DispositionEffects | undefined,
  heavySeen: number,
  now: number,
): DispositionEffects {
  const heavilyUsed = item.returnedItemCondition === 'HEAVILY_USED';
  const abusive = abusiveDispositionCause(item) !== undefined || (heavilyUsed && heavySeen > 0);
  const effects: DispositionEffects = {};
  if (abusive) effects.abusiveAt = before?.abusiveAt ?? now;
  if (heavilyUsed) effects.heavilyUsedAt = before?.heavilyUsedAt ?? now;
  return effects;
}

/**
 * The watch entries a return's dispositions call for while an item of it is confirmed abuse (empty
 * box, counterfeit, removed as suspected abuse), worded by the first such item.
 */
function listTarget(stored: ReturnRecord, byLine: Record<string, StoredDisposition>, now: number) {
  const cause = Object.keys(byLine)
    .sort((a, b) => Number(a) - Number(b))
    .map((line) => abusiveDispositionCause(byLine[line]!))
    .find((found): found is NoteCause => found !== undefined);
  if (!cause) return [];
  return dispositionEntries(
    { providerReturnId: stored.providerReturnId, identities: parseIdentityIds(stored.identities) },
    cause,
    now,
  );
}

/** Moves a 0/1 counter from its old state to its new one, at the times it was counted. */
function moveCounter(
  changes: HistoryChanges,
  identities: readonly IdentityRef[],
  metric: string,
  beforeAt: number | undefined,
  afterAt: number | undefined,
): void {
  if (beforeAt === afterAt) return;
  if (beforeAt !== undefined) changes.addEach(identities, metric, -1, beforeAt);
  if (afterAt !== undefined) changes.addEach(identities, metric, 1, afterAt);
}

const sameVerdict = (stored: StoredDisposition, item: ItemDisposition) =>
  stored.returnedItemCondition === item.returnedItemCondition &&
  stored.dispositionOutcome === item.dispositionOutcome;

/** A re-sent disposition with the same fields changes nothing (idempotent per return and item). */
function sameDisposition(
  stored: StoredDisposition,
  text: DispositionTexts[string] | undefined,
  item: ItemDisposition,
): boolean {
  const { recordedAt: _recordedAt, effects: _effects, ...fields } = stored;
  const { writtenAt: _writtenAt, ...kept } = text ?? {};
  return canonicalJson({ ...fields, ...kept }) === canonicalJson(item);
}
