import type { DynamoDBStreamEvent } from 'aws-lambda';
import { feedOverviewCounters } from '../shared/console/overview-feed.ts';

/**
 * The overview feed: decided events inserted into the table, from its stream, added to their day's
 * counters (shared/console/overview-feed.ts), so the console's overview reads today without reading
 * today's events.
 */
export async function handler(event: DynamoDBStreamEvent): Promise<void> {
  await feedOverviewCounters(event.Records);
}
