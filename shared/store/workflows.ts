import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { DEFAULT_WORKFLOWS, type EventType, type Workflow, type WorkflowRule } from '../scoring/workflow.ts';
import { documentClient, tableName } from './client.ts';
import { keys } from './keys.ts';

/**
 * A merchant's workflow per event type is one item, read in the request's single BatchGetItem.
 * No stored item means the default workflow. Workflows are validated before they are saved
 * (scoring/workflow-validation.ts), so reading trusts their shape.
 */
export const workflowKey = (merchantId: string, eventType: EventType) => keys.workflow(merchantId, eventType);

export function workflowFromItem(item: Record<string, unknown> | undefined, eventType: EventType): Workflow {
  const stored = item?.workflow as StoredWorkflow | undefined;
  if (!stored || !Array.isArray(stored.rules) || !stored.defaultBranch) return DEFAULT_WORKFLOWS[eventType];
  return {
    eventType,
    version: stored.version,
    rules: stored.rules.map(toRule),
    defaultBranch: stored.defaultBranch,
  };
}

/** Rules saved before conditions were CEL carried a score threshold; read them as the same condition. */
type StoredRule = WorkflowRule | (Omit<WorkflowRule, 'condition'> & { minScore: number });
type StoredWorkflow = Omit<Workflow, 'rules'> & { rules: StoredRule[] };

function toRule(rule: StoredRule): WorkflowRule {
  if ('condition' in rule) return rule;
  const { minScore, ...rest } = rule;
  return { ...rest, condition: `abuseScore >= ${minScore}` };
}

export interface StoredWorkflowRecord {
  workflow: Workflow;
  source: 'stored' | 'default';
  updatedAt: string | undefined;
}

export async function getWorkflow(merchantId: string, eventType: EventType): Promise<StoredWorkflowRecord> {
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: workflowKey(merchantId, eventType), ConsistentRead: true }),
  );
  return {
    workflow: workflowFromItem(Item, eventType),
    source: Item?.workflow ? 'stored' : 'default',
    updatedAt: typeof Item?.updatedAt === 'string' ? Item.updatedAt : undefined,
  };
}

/** Replaces the merchant's workflow for its event type; the next request reads the new one. */
export async function saveWorkflow(merchantId: string, workflow: Workflow, now: number): Promise<void> {
  await documentClient.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...workflowKey(merchantId, workflow.eventType),
        entity: 'workflow',
        merchantId,
        eventType: workflow.eventType,
        workflow,
        updatedAt: new Date(now).toISOString(),
      },
    }),
  );
}
