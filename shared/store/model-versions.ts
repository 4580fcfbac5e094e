import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { EventType } from '../contract/endpoints.ts';
import { type ModelPointers, NO_POINTERS, scoringPartOf } from '../learning/model-pointers.ts';
import type { ModelVersion } from '../learning/train.ts';
import type { LiveModels } from '../scoring/decide.ts';
import { modelFor } from '../scoring/models.ts';
import { documentClient, tableName } from './client.ts';
import { learningKeys, type TableKey } from './keys.ts';
import { queryAll } from './query-all.ts';
import { PARTITION_KEY, SORT_KEY } from './table-definition.ts';
import { StaleRecordError, VERSION_ATTRIBUTE, versionCondition } from './versioned.ts';

/**
 * A merchant's trained model versions (immutable: written once, never changed or deleted) and the
 * pointers item saying which one is active and which runs in shadow.
 */
export class ModelVersionExistsError extends Error {
  constructor(version: string) {
    super(`model version ${version} already exists`);
    this.name = 'ModelVersionExistsError';
  }
}

export async function saveModelVersion(version: ModelVersion): Promise<void> {
  try {
    await documentClient.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...learningKeys.modelVersion(version.merchantId, version.eventType, version.version),
          entity: 'modelVersion',
          model: version,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException')
      throw new ModelVersionExistsError(version.version);
    throw error;
  }
}

export async function getModelVersion(
  merchantId: string,
  eventType: EventType,
  version: string,
): Promise<ModelVersion | undefined> {
  const { Item } = await documentClient.send(
    new GetCommand({
      TableName: tableName,
      Key: learningKeys.modelVersion(merchantId, eventType, version),
      ConsistentRead: true,
    }),
  );
  return Item?.model as ModelVersion | undefined;
}

/** Every version of the merchant's model for the event type, oldest first by version id. */
export async function listModelVersions(merchantId: string, eventType: EventType): Promise<ModelVersion[]> {
  const partition = learningKeys.modelPointers(merchantId, eventType)[PARTITION_KEY];
  const versions: ModelVersion[] = [];
  await queryAll(
    {
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
      ExpressionAttributeValues: { ':pk': partition, ':prefix': learningKeys.modelVersionPrefix },
      ConsistentRead: true,
    },
    (item) => {
      versions.push(item.model as ModelVersion);
      return true;
    },
  );
  return versions;
}

export const modelPointersKey = (merchantId: string, eventType: EventType): TableKey =>
  learningKeys.modelPointers(merchantId, eventType);

function modelPointersFromItem(item: Record<string, unknown> | undefined): ModelPointers {
  const pointers = item?.pointers as ModelPointers | undefined;
  return pointers ?? NO_POINTERS;
}

/** What live scoring uses: the one place a merchant's model for an event type is resolved. */
export function liveModelsFromItem(
  item: Record<string, unknown> | undefined,
  eventType: EventType,
): LiveModels {
  const { active, shadow } = modelPointersFromItem(item);
  return { active: active ?? modelFor(eventType), ...(shadow ? { shadow } : {}) };
}

export async function getModelPointers(merchantId: string, eventType: EventType): Promise<ModelPointers> {
  const { Item } = await documentClient.send(
    new GetCommand({
      TableName: tableName,
      Key: modelPointersKey(merchantId, eventType),
      ConsistentRead: true,
    }),
  );
  return modelPointersFromItem(Item);
}

/**
 * Replaces the pointers read at `read.revision` with `next`; a concurrent change that came first
 * makes it a StaleRecordError and changes nothing.
 */
export async function saveModelPointers(
  merchantId: string,
  eventType: EventType,
  read: ModelPointers,
  next: ModelPointers,
  now: number,
): Promise<void> {
  const compact: ModelPointers = {
    ...(next.active ? { active: scoringPartOf(next.active) } : {}),
    ...(next.shadow ? { shadow: scoringPartOf(next.shadow) } : {}),
    previous: next.previous.map((m) => (m ? scoringPartOf(m) : null)),
    revision: next.revision,
  };
  try {
    await documentClient.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...modelPointersKey(merchantId, eventType),
          entity: 'modelPointers',
          merchantId,
          eventType,
          pointers: compact,
          [VERSION_ATTRIBUTE]: next.revision,
          updatedAt: new Date(now).toISOString(),
        },
        ...versionCondition(read.revision === 0 ? undefined : read.revision),
      }),
    );
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException')
      throw new StaleRecordError('model pointers');
    throw error;
  }
}
