-- One partition of decided_events without an erased customer's rows: what its files are rewritten
-- with (docs/privacy.md). The match is erasure_partitions.sql's for this table.
-- parameters: merchant_id, kind, day, names, names
SELECT event_key, event_id, part, event_at, decision, sub_decision, abuse_score, model_version, value, signals,
  fields, model_thresholds, identities, sample_key, revision, changed_at
FROM decided_events
WHERE merchant_id = ? AND kind = ? AND day = ?
  AND NOT (
    EXISTS (
      SELECT 1 FROM UNNEST(identities) AS u (identity)
      WHERE strpos(?, concat(chr(31), u.identity, chr(31))) > 0
    ) OR strpos(?, concat(chr(31), 'event:', coalesce(event_key, ''), chr(31))) > 0
  )
