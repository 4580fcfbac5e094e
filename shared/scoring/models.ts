import type { ScoringModel } from './model.ts';
import accountModel from './models/account.json' with { type: 'json' };
import loginModel from './models/login.json' with { type: 'json' };
import orderModel from './models/order.json' with { type: 'json' };
import returnModel from './models/return.json' with { type: 'json' };
import signupModel from './models/signup.json' with { type: 'json' };
import type { EventType } from './workflow.ts';

/** The current model per event type; weights live in reviewed, versioned JSON files beside this. */
export const MODELS: Partial<Record<EventType, ScoringModel>> = {
  order: orderModel,
  return: returnModel,
  signup: signupModel,
  login: loginModel,
  account: accountModel,
};

export function modelFor(eventType: EventType): ScoringModel {
  const model = MODELS[eventType];
  if (!model) throw new Error(`No scoring model for ${eventType}`);
  return model;
}
