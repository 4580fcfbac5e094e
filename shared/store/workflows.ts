import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { EventType } from '../contract/endpoints.ts';
import { DEFAULT_WORKFLOWS, type Workflow, type WorkflowRule } from '../scoring/workflow.ts';
import { documentClient, tableName } from './client.ts';
import { consoleKeys, keys } from './keys.ts';
import { type Page, queryPage } from './pages.ts';
import { PARTITION_KEY, SORT_KEY } from './table-definition.ts';
import { type TransactItems, transactWrite } from './transact.ts';

/**
 * A merchant's workflow per event type is one item, read in the request's single BatchGetItem (the
 * type's decision settings share it: store/decision-settings.ts).
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

/**
 * Replaces the merchant's workflow for its event type; the next request reads the new one. The same
 * transaction keeps the version in the workflow's history (with who saved it) and whatever the
 * caller adds (the console's audit entry).
 */
export async function saveWorkflow(
  merchantId: string,
  workflow: Workflow,
  now: number,
  savedBy = 'admin CLI',
  alsoWrite: TransactItems = [],
): Promise<void> {
  const savedAt = new Date(now).toISOString();
  await transactWrite([
    {
      // An update of the workflow's own attributes: the decision settings on the same item stay.
      Update: {
        TableName: tableName,
        Key: workflowKey(merchantId, workflow.eventType),
        UpdateExpression:
          'SET #entity = :entity, #merchant = :merchant, #type = :type, #workflow = :workflow, #at = :at',
        ExpressionAttributeNames: {
          '#entity': 'entity',
          '#merchant': 'merchantId',
          '#type': 'eventType',
          '#workflow': 'workflow',
          '#at': 'updatedAt',
        },
        ExpressionAttributeValues: {
          ':entity': 'workflow',
          ':merchant': merchantId,
          ':type': workflow.eventType,
          ':workflow': workflow,
          ':at': savedAt,
        },
      },
    },
    {
      Put: {
        TableName: tableName,
        Item: {
          ...consoleKeys.workflowVersion(merchantId, workflow.eventType, savedAt, workflow.version),
          entity: 'workflowVersion',
          merchantId,
          workflow,
          savedAt,
          savedBy,
        },
      },
    },
    ...alsoWrite,
  ]);
}

export interface WorkflowVersion {
  workflow: Workflow;
  savedAt: string;
  savedBy: string;
}

/** Saved versions of a workflow, newest first. */
export function listWorkflowVersions(
  merchantId: string,
  eventType: EventType,
  cursor: string | undefined,
  limit: number,
): Promise<Page<WorkflowVersion>> {
  const partition = workflowKey(merchantId, eventType)[PARTITION_KEY];
  return queryPage(
    {
      query: {
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
        ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
        ExpressionAttributeValues: { ':pk': partition, ':prefix': consoleKeys.workflowVersionPrefix },
      },
      partition: { attribute: PARTITION_KEY, value: partition },
      oldestFirst: false,
      cursor,
      limit,
    },
    (item) => ({
      workflow: workflowFromItem(item, eventType),
      savedAt: item.savedAt as string,
      savedBy: item.savedBy as string,
    }),
  );
}
