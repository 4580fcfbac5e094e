import { EVENT_TYPES, type EventType } from '../contract/endpoints.ts';
import { TrainingError } from '../learning/train.ts';
import type { StoredGuard } from '../store/decision-settings.ts';
import { getMerchant, listMerchantIds } from '../store/merchants.ts';
import { refreshGuard } from './decision-economics.ts';
import { trainMerchantModel } from './train-merchant-model.ts';

/**
 * The training job (functions/train-models.ts): nightly for every merchant, or on demand for one
 * merchant and optionally one event type. Each training goes through trainMerchantModel, the use
 * case `models train` runs; a new version is promoted when asked (`promote`) or when the merchant
 * has auto-promotion on, and only if the promotion rule holds. Then the good-customer guard of
 * each type is measured again for the model now live (decision-economics.ts). One merchant's
 * failure (no labels yet, a store error) is reported and does not stop the others.
 */
export interface TrainingJobRequest {
  /** One merchant (on demand); absent: every merchant (nightly). */
  merchantId?: string;
  /** One event type; absent: all of them. */
  eventType?: EventType;
  /** Promote regardless of the merchant's auto-promotion setting (still only when the rule holds). */
  promote?: boolean;
}

export interface TrainingJobResult {
  merchantId: string;
  eventType: EventType;
  outcome: 'trained' | 'not_trained' | 'failed';
  version?: string;
  promoted?: boolean;
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

export async function runTrainingJob(request: TrainingJobRequest, now: number): Promise<TrainingJobResult[]> {
  const merchantIds = request.merchantId ? [request.merchantId] : await listMerchantIds();
  const eventTypes = request.eventType ? [request.eventType] : EVENT_TYPES;
  const results: TrainingJobResult[] = [];
  for (const merchantId of merchantIds) {
    const merchant = await getMerchant(merchantId);
    if (!merchant) {
      if (request.merchantId) throw new UnknownMerchantError(merchantId);
      continue;
    }
    const promote = request.promote === true || merchant.autoPromoteModels;
    for (const eventType of eventTypes) {
      const trained = await trainOne(merchantId, eventType, promote, now);
      results.push({ ...trained, guard: await guardFor(merchantId, eventType, now) });
    }
  }
  return results;
}

async function trainOne(
  merchantId: string,
  eventType: EventType,
  promote: boolean,
  now: number,
): Promise<TrainingJobResult> {
  try {
    const { version, promoted } = await trainMerchantModel({ merchantId, eventType, promote, now });
    return {
      merchantId,
      eventType,
      outcome: 'trained',
      version: version.version,
      promoted,
      reasons: version.evaluation.promotion.reasons,
    };
  } catch (error) {
    if (error instanceof TrainingError)
      return { merchantId, eventType, outcome: 'not_trained', reasons: [error.message] };
    return { merchantId, eventType, outcome: 'failed', reasons: [(error as Error).message] };
  }
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
