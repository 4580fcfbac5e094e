import { EVENT_TYPES, type EventType } from '../contract/endpoints.ts';
import type { TrainingSet } from '../lake/training-set.ts';
import { TrainingError } from '../learning/train.ts';
import type { StoredGuard } from '../store/decision-settings.ts';
import { getMerchant, listMerchantIds } from '../store/merchants.ts';
import { refreshGuard } from './decision-economics.ts';
import { trainMerchantModel } from './train-merchant-model.ts';

/**
 * The nightly learning run (lib/learning-stack.ts), one item per merchant and event type: the items
 * are listed, then each reads its training set from the lake and is fitted on its own; the run
 * counts the outcomes. A new version is promoted when the item asks (`promote`) or the merchant has
 * auto-promotion on, and only if the promotion rule holds; then the type's good-customer guard is
 * measured again for the model now live (decision-economics.ts). Missing labels are an outcome
 * (`not_trained`); any other error fails the item, which Step Functions retries and then counts.
 */
export interface LearningItem {
  merchantId: string;
  eventType: EventType;
  /** Promote regardless of the merchant's auto-promotion setting (still only when the rule holds). */
  promote?: boolean;
}

export interface LearningItemResult {
  merchantId: string;
  eventType: EventType;
  outcome: 'trained' | 'not_trained';
  version?: string;
  promoted?: boolean;
  /** Rows the fit read (positives and sampled negatives before labelling), and parts in the window. */
  rowsRead: number;
  partsInWindow: number;
  /** Why it was not trained or not promoted. */
  reasons?: string[];
  /** The guard's floors now in force, or why they could not be measured again. */
  guard?: Pick<StoredGuard, 'declineAt' | 'reviewAt' | 'source'> | { error: string };
}

class UnknownMerchantError extends Error {
  constructor(merchantId: string) {
    super(`no merchant ${merchantId}`);
    this.name = 'UnknownMerchantError';
  }
}

/** Every merchant and event type (nightly), or one merchant and optionally one type (on demand). */
export async function learningItems(
  request: { merchantId?: string; eventType?: EventType; promote?: boolean } = {},
): Promise<LearningItem[]> {
  if (request.merchantId && !(await getMerchant(request.merchantId)))
    throw new UnknownMerchantError(request.merchantId);
  const merchantIds = request.merchantId ? [request.merchantId] : await listMerchantIds();
  const eventTypes = request.eventType ? [request.eventType] : EVENT_TYPES;
  return merchantIds.flatMap((merchantId) =>
    eventTypes.map((eventType) => ({
      merchantId,
      eventType,
      ...(request.promote === undefined ? {} : { promote: request.promote }),
    })),
  );
}

export async function fitLearningItem(
  item: LearningItem,
  set: TrainingSet,
  now: number,
): Promise<LearningItemResult> {
  const { merchantId, eventType } = item;
  const merchant = await getMerchant(merchantId);
  if (!merchant) throw new UnknownMerchantError(merchantId);
  const read = {
    rowsRead: set.events.reduce((n, e) => n + e.parts.length, 0),
    partsInWindow: set.partsInWindow,
  };
  let trained: Omit<LearningItemResult, 'guard'>;
  try {
    const promote = item.promote === true || merchant.autoPromoteModels;
    const { version, promoted } = await trainMerchantModel({ merchantId, eventType, promote, now, set });
    trained = {
      merchantId,
      eventType,
      outcome: 'trained',
      version: version.version,
      promoted,
      ...read,
      reasons: version.evaluation.promotion.reasons,
    };
  } catch (error) {
    if (!(error instanceof TrainingError)) throw error;
    trained = { merchantId, eventType, outcome: 'not_trained', ...read, reasons: [error.message] };
  }
  return { ...trained, guard: await guardFor(merchantId, eventType, now) };
}

/** The guard after training: a failure to measure it keeps the floors there were and is reported. */
async function guardFor(merchantId: string, eventType: EventType, now: number) {
  try {
    const { declineAt, reviewAt, source } = await refreshGuard(merchantId, eventType, now);
    return { declineAt, reviewAt, source };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** Up to this many items, a run's output lists each item's result too (a run on demand has one). */
const RESULTS_LISTED = 10;

export type LearningRunOutput = ReturnType<typeof countLearningResults> & {
  results?: (LearningItemResult | { failed: true })[];
};

/** The learning run's output: its counts, and each item's result when there are few. */
export function learningRunOutput(
  results: readonly (LearningItemResult | { failed: true })[],
): LearningRunOutput {
  const counts = countLearningResults(results);
  return results.length <= RESULTS_LISTED ? { ...counts, results: [...results] } : counts;
}

/** A run's outcome in numbers: items whose result is missing failed (Step Functions gave up on them). */
function countLearningResults(results: readonly (LearningItemResult | { failed: true })[]) {
  const done = results.filter((r): r is LearningItemResult => !('failed' in r));
  return {
    items: results.length,
    trained: done.filter((r) => r.outcome === 'trained').length,
    promoted: done.filter((r) => r.promoted).length,
    notTrained: done.filter((r) => r.outcome === 'not_trained').length,
    failed: results.length - done.length,
  };
}
