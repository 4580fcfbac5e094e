import type { ScoringModel } from './model.ts';
import orderModel from './models/order.json' with { type: 'json' };
import type { EventType } from './workflow.ts';

/** The current model per event type; weights live in reviewed, versioned JSON files beside this. */
export const MODELS: Partial<Record<EventType, ScoringModel>> = {
  order: orderModel,
};

export function modelFor(eventType: EventType): ScoringModel {
  const model = MODELS[eventType];
  if (!model) throw new Error(`No scoring model for ${eventType}`);
  return model;
}
