-- A merchant's decided events of one kind over a range of days, each part at its latest revision, as
-- the lake holds them (digests, never raw personal data): one kind of a bulk export (docs/lake.md).
-- parameters: merchant_id, kind, from_day, to_day
WITH revisions AS (
  SELECT
    kind, day, event_key, event_id, part, event_at, decision, abuse_score, model_version, value, signals,
    identities, revision,
    row_number() OVER (PARTITION BY event_key, part ORDER BY revision DESC, changed_at DESC) AS newest
  FROM decided_events
  WHERE merchant_id = ? AND kind = ? AND day BETWEEN ? AND ?
)
SELECT kind, day, event_key, event_id, part, event_at, decision, abuse_score, model_version, value, signals,
  identities, revision
FROM revisions
WHERE newest = 1
ORDER BY event_at, event_key, part
