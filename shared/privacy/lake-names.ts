import { EVENT_TYPES } from '../contract/endpoints.ts';
import { decidedEventRowOf } from '../store/decided-events.ts';
import type { SubjectRecords } from '../store/subject-records.ts';

/**
 * What an erasure matches the lake's rows by (shared/lake/lake-erasure.ts): the customer's identities
 * (`kind#digest`, in decided events' `identities` and list changes' digests) and its erased records
 * as the lake's rows name them: its events by key, its orders by id (disputes name them), its
 * disputes, dispositions and reviews as `<feedback kind>:<id>` (list entries' causes name them so
 * too), its list entries by id. Worked out from the records before the table's are erased.
 */
export function lakeNamesOf(identities: readonly string[], records: SubjectRecords): string[] {
  const events = records.events.flatMap((item) => {
    const type = EVENT_TYPES.find((t) => t === item.entity);
    const row = type ? decidedEventRowOf(item, type) : undefined;
    if (!type || !row) return [];
    return [
      `event:${row.eventKey}`,
      ...(type === 'order' ? [`order:${row.eventId}`] : []),
      ...(type === 'return' ? [`disposition:${row.eventId}`] : []),
    ];
  });
  return [
    ...new Set([
      ...identities,
      ...events,
      ...records.disputes.map((d) => `dispute:${String(d.disputeId)}`),
      ...records.dispositions.map((d) => `disposition:${String(d.providerReturnId)}`),
      ...records.reviews.map((r) => `review:${String(r.reviewId)}`),
      ...records.listEntries.map((e) => `entry:${String(e.entryId)}`),
    ]),
  ];
}
