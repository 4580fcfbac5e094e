import type { ScoringModel } from '../scoring/model.ts';

/**
 * Which model version a merchant's live decisions use for one event type, and which one runs in
 * shadow. The pointers carry copies of those versions' weights (versions are immutable, so a copy
 * never goes stale), which lets live scoring read them in the request's one BatchGetItem. Pure.
 */
export interface ModelPointers {
  /** Absent: the default model. */
  active?: ScoringModel;
  /** Scored beside every live decision and stored with it, never used to decide. */
  shadow?: ScoringModel;
  /** Models active before, oldest first; null stands for the default. Rollback returns to the last. */
  previous: (ScoringModel | null)[];
  /** Bumped by every change: writes are conditional on it, so concurrent changes cannot interleave. */
  revision: number;
}

/** Enough rollbacks for any incident; older entries fall off. */
const MAX_PREVIOUS = 20;

export const NO_POINTERS: ModelPointers = { previous: [], revision: 0 };

export function withPromoted(pointers: ModelPointers, model: ScoringModel): ModelPointers {
  const { shadow, ...rest } = pointers;
  return {
    ...rest,
    active: model,
    // A promoted shadow has nothing left to compare against.
    ...(shadow && shadow.version !== model.version ? { shadow } : {}),
    previous: [...pointers.previous, pointers.active ?? null].slice(-MAX_PREVIOUS),
    revision: pointers.revision + 1,
  };
}

/** Undefined when there is nothing to roll back to. */
export function withRolledBack(pointers: ModelPointers): ModelPointers | undefined {
  if (pointers.previous.length === 0) return undefined;
  const previous = pointers.previous.slice(0, -1);
  const restored = pointers.previous[pointers.previous.length - 1];
  const { active: _dropped, ...rest } = pointers;
  return { ...rest, ...(restored ? { active: restored } : {}), previous, revision: pointers.revision + 1 };
}

export function withShadow(pointers: ModelPointers, model: ScoringModel | undefined): ModelPointers {
  const { shadow: _replaced, ...rest } = pointers;
  return { ...rest, ...(model ? { shadow: model } : {}), revision: pointers.revision + 1 };
}

/** The scoring copy (weights and thresholds) kept in the pointers (a version's evaluation stays on the version item). */
export const scoringPartOf = (model: ScoringModel): ScoringModel => ({
  eventType: model.eventType,
  version: model.version,
  bias: model.bias,
  weights: model.weights,
  // A version decides with its own thresholds (the default workflows read them).
  ...(model.thresholds ? { thresholds: model.thresholds } : {}),
});
