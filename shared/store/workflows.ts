import { DEFAULT_WORKFLOWS, type EventType, type Workflow } from '../scoring/workflow.ts';
import { keys } from './keys.ts';

/**
 * A merchant's workflow per event type is one item, read in the request's single BatchGetItem.
 * No stored item means the default workflow.
 */
export const workflowKey = (merchantId: string, eventType: EventType) => keys.workflow(merchantId, eventType);

export function workflowFromItem(item: Record<string, unknown> | undefined, eventType: EventType): Workflow {
  const stored = item?.workflow as Workflow | undefined;
  return stored ?? DEFAULT_WORKFLOWS[eventType];
}
