import type { ModelThresholds, ScoringModel } from './model.ts';
import accountModel from './models/account.json' with { type: 'json' };
import loginModel from './models/login.json' with { type: 'json' };
import orderModel from './models/order.json' with { type: 'json' };
import returnModel from './models/return.json' with { type: 'json' };
import signupModel from './models/signup.json' with { type: 'json' };
import type { SignalName } from './signals/registry.ts';
import type { EventType } from './workflow.ts';

/**
 * A default model of event type T: one weight per signal T declares (signals/registry.ts), no
 * other. tsc holds each JSON file to it below: a weight for a signal T does not declare fails as
 * "not assignable to type 'never'", a declared signal without a weight as a missing property.
 * A weight of 0 is a weight: the signal is recorded and trained on without moving scores yet.
 */
type DefaultModel<T extends EventType, M extends { weights: object }> = ScoringModel & {
  weights: Record<SignalName<T>, number> & Record<Exclude<keyof M['weights'], SignalName<T>>, never>;
};

/** The current model per event type; weights live in reviewed, versioned JSON files beside this. */
export const MODELS: Partial<Record<EventType, ScoringModel>> = {
  order: orderModel satisfies DefaultModel<'order', typeof orderModel>,
  return: returnModel satisfies DefaultModel<'return', typeof returnModel>,
  signup: signupModel satisfies DefaultModel<'signup', typeof signupModel>,
  login: loginModel satisfies DefaultModel<'login', typeof loginModel>,
  account: accountModel satisfies DefaultModel<'account', typeof accountModel>,
};

export function modelFor(eventType: EventType): ScoringModel {
  const model = MODELS[eventType];
  if (!model) throw new Error(`No scoring model for ${eventType}`);
  return model;
}

/**
 * The default models' thresholds: the scores the default workflows declined and reviewed at before
 * thresholds belonged to the model. Types whose default workflow has no REVIEW branch review from the
 * DECLINE threshold, i.e. never, unless a merchant's workflow adds a band below it.
 */
export const DEFAULT_MODEL_THRESHOLDS: Record<EventType, ModelThresholds> = {
  order: { declineAt: 85, reviewAt: 85 },
  return: { declineAt: 85, reviewAt: 55 },
  signup: { declineAt: 70, reviewAt: 70 },
  login: { declineAt: 70, reviewAt: 70 },
  account: { declineAt: 85, reviewAt: 50 },
};

/** The thresholds a model decides with: its own when trained with them, else the default's. */
export function thresholdsOf(model: ScoringModel, eventType: EventType): ModelThresholds {
  return model.thresholds ?? DEFAULT_MODEL_THRESHOLDS[eventType];
}
