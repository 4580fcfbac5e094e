import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { BacktestEvent } from '../scoring/backtest.ts';
import type { Decision } from '../scoring/decide.ts';
import type { EventType } from '../scoring/workflow.ts';
import { documentClient, tableName } from './client.ts';
import { gsi1 } from './keys.ts';
import { GSI1 } from './table-definition.ts';

/**
 * Recent decided events of one type, for backtests. Every scored event record carries
 * `gsi1.eventsByType(...)` attributes, `entity` = its event type, and its decision(s) as `decision`
 * (one) or `decisions` (one per part, e.g. returned line items, as `{ decision }` or plain Decisions).
 * Only those attributes are read.
 */
export async function listDecidedEvents(
  merchantId: string,
  eventType: EventType,
  since: number,
  limit: number,
): Promise<{ events: BacktestEvent[]; more: boolean }> {
  const partition = gsi1.eventsByType(merchantId, eventType, '', '')[GSI1.partitionKey];
  const events: BacktestEvent[] = [];
  let startKey: Record<string, unknown> | undefined;
  let cutShort = false;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: GSI1.name,
        KeyConditionExpression: '#pk = :pk AND #sk >= :since',
        FilterExpression: '#entity = :type',
        ProjectionExpression: '#sk, #entity, #decision, #decisions',
        ExpressionAttributeNames: {
          '#pk': GSI1.partitionKey,
          '#sk': GSI1.sortKey,
          '#entity': 'entity',
          '#decision': 'decision',
          '#decisions': 'decisions',
        },
        ExpressionAttributeValues: {
          ':pk': partition,
          ':since': new Date(since).toISOString(),
          ':type': eventType,
        },
        ScanIndexForward: false,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const event = toBacktestEvent(item);
      if (event) events.push(event);
      if (events.length >= limit) {
        cutShort = true;
        break;
      }
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey && events.length < limit);
  return { events, more: cutShort || startKey !== undefined };
}

function toBacktestEvent(item: Record<string, unknown>): BacktestEvent | undefined {
  const sortKey = String(item[GSI1.sortKey] ?? '');
  const separator = sortKey.indexOf('#');
  const createdAt = sortKey.slice(0, separator);
  const eventId = sortKey.slice(separator + 1);
  const decisions = decisionsOfItem(item);
  if (separator < 0 || decisions.length === 0) return undefined;
  return { eventId, createdAt, decisions };
}

/** The decision(s) of a stored event record, in part order (training reads them too). */
export function decisionsOfItem(item: Record<string, unknown>): Decision[] {
  return [
    ...(isDecision(item.decision) ? [item.decision] : []),
    ...(Array.isArray(item.decisions)
      ? item.decisions.flatMap((d: unknown) => {
          const inner = (d as { decision?: unknown } | null)?.decision;
          if (isDecision(d)) return [d];
          return isDecision(inner) ? [inner] : [];
        })
      : []),
  ];
}

function isDecision(value: unknown): value is Decision {
  const d = value as Partial<Decision> | null | undefined;
  return (
    typeof d === 'object' && d !== null && typeof d.decision === 'string' && typeof d.abuseScore === 'number'
  );
}
