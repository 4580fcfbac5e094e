import type { EventType } from '../../shared/contract/endpoints.ts';
import type { LakeRow } from '../../shared/lake/lake-tables.ts';

/** What a test lake's decision part carries beyond its event's key, time, identities and revision. */
export interface PartValues {
  decision: string;
  sub_decision?: string | null;
  abuse_score: number;
  value: number | null;
  signals: string;
  fields?: string | null;
  model_thresholds?: string | null;
  sample_key: number;
}

/** A decided event's lake rows, one per part, as the stream's projection writes them. */
export function decidedLakeRows(
  event: {
    merchantId: string;
    kind: EventType;
    id: string;
    at: number;
    identities: string[];
    parts?: number;
    revision?: number;
  },
  partValues: (part: number) => PartValues,
): LakeRow[] {
  const { merchantId, kind, id, at, identities, parts = 1, revision = 0 } = event;
  return Array.from({ length: parts }, (_, part) => ({
    table: 'decided_events' as const,
    kind,
    merchantId,
    day: new Date(at).toISOString().slice(0, 10),
    values: {
      event_key: `${kind.toUpperCase()}#${id}`,
      event_id: id,
      part,
      event_at: at,
      model_version: `${kind}-1`,
      identities,
      revision,
      changed_at: at + revision,
      sub_decision: null,
      fields: null,
      model_thresholds: null,
      ...partValues(part),
    },
  }));
}
