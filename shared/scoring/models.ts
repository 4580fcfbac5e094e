import type { EventType } from '../contract/endpoints.ts';
import type { ModelThresholds, ScoringModel } from './model.ts';
import accountModel from './models/account.json' with { type: 'json' };
import loginModel from './models/login.json' with { type: 'json' };
import orderModel from './models/order.json' with { type: 'json' };
import returnModel from './models/return.json' with { type: 'json' };
import signupModel from './models/signup.json' with { type: 'json' };
import type { SignalName } from './signals/registry.ts';

/**
 * A default model of event type T: one weight per signal T declares (signals/registry.ts), no
 * other. tsc holds each JSON file to it below: a weight for a signal T does not declare fails as
 * "not assignable to type 'never'", a declared signal without a weight as a missing property.
 * A weight of 0 is a weight: the signal is recorded and trained on without moving scores yet.
 */
type DefaultModel<T extends EventType, M extends { weights: object }> = ScoringModel & {
  weights: Record<SignalName<T>, number> & Record<Exclude<keyof M['weights'], SignalName<T>>, never>;
};

/**
 * The current model per event type; weights live in reviewed, versioned JSON files beside this.
 *
 * How the default (untrained) models' probabilities are calibrated: they are not fitted to anyone's
 * data. Each is an additive log-odds model set by hand and reviewed: the bias is the log-odds of
 * abuse of an event on which no signal fires (order -3.2: 3.9 %; return -2.6: 6.9 %; signup -3.5:
 * 2.9 %; login and account -4.0: 1.8 %), and each weight is how much one unit of its signal
 * multiplies those odds (e^w: a lost chargeback on the customer's own card or e-mail, 2.8, about
 * 16 times). So a score is a probability only as far as those judgments hold and the signals add up
 * independently; `npm run eval` checks it on labeled synthetic traffic by decile. Decisions lean on
 * it through the merchant's economics, which is why the good-customer guard stands under them: its
 * floors are the default 50/30 until the merchant's own labeled events measure where its budget
 * holds. A trained version is calibrated on the merchant's own labels (train.ts, the bias corrected
 * for sampling), and brings the thresholds it chose on its holdout as its floors.
 */
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
 * The default models' fixed thresholds, from before thresholds followed the merchant's economics
 * (decision-thresholds.ts): what a decision stored without its thresholds was decided at (backtests
 * replay it so), and what training reads the default model at and falls back to on a holdout too
 * small to choose its own. Live decisions no longer use them.
 */
export const DEFAULT_MODEL_THRESHOLDS: Record<EventType, ModelThresholds> = {
  order: { declineAt: 85, reviewAt: 85 },
  return: { declineAt: 85, reviewAt: 55 },
  signup: { declineAt: 70, reviewAt: 70 },
  login: { declineAt: 70, reviewAt: 70 },
  account: { declineAt: 85, reviewAt: 50 },
};

/** A model's own thresholds: a trained version's, else the default's fixed ones (above). */
export function thresholdsOf(model: ScoringModel, eventType: EventType): ModelThresholds {
  return model.thresholds ?? DEFAULT_MODEL_THRESHOLDS[eventType];
}
