import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { KinesisStreamEvent } from 'aws-lambda';
import { feedOverviewCounters } from '../shared/console/overview-feed.ts';

/** A change as Kinesis Data Streams for DynamoDB writes it (the record's data, JSON). */
interface DynamoDbChange {
  eventName?: string;
  dynamodb?: { NewImage?: Record<string, AttributeValue> };
}

/**
 * The overview feed (lib/overview-feed.ts): decided events inserted into the table, from its Kinesis
 * stream (filtered to them), added to their day's counters (shared/console/overview-feed.ts), so the
 * console's overview reads today without reading today's events. A batch is one shard's, in order;
 * its event ID is `<shardId>:<sequenceNumber>`.
 */
export async function handler(event: KinesisStreamEvent): Promise<void> {
  await feedOverviewCounters(
    event.Records.map(({ eventID, kinesis }) => {
      const change = JSON.parse(Buffer.from(kinesis.data, 'base64').toString('utf8')) as DynamoDbChange;
      return {
        shardId: eventID.slice(0, eventID.indexOf(':')),
        sequenceNumber: kinesis.sequenceNumber,
        eventName: change.eventName ?? '',
        newImage: change.dynamodb?.NewImage,
      };
    }),
  );
}
