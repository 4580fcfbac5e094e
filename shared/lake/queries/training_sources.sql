-- The orders and returns with feedback (and any reviewed event) since a day, each part at its latest
-- revision: where abuse lands on identities that account events inherit (shared/learning/labels.ts).
-- parameters: merchant_id, from_day, merchant_id, from_day
WITH concerned AS (
  SELECT order_id, return_id, event_key
  FROM feedback
  WHERE merchant_id = ? AND day >= ?
),
events AS (
  SELECT
    kind, event_key, event_id, part, event_at, decision, abuse_score, model_version, value, signals, identities,
    sample_key,
    row_number() OVER (PARTITION BY event_key, part ORDER BY revision DESC, changed_at DESC) AS newest
  FROM decided_events
  WHERE merchant_id = ? AND day >= ?
    AND (
      (kind = 'order' AND event_id IN (SELECT order_id FROM concerned))
      OR (kind = 'return' AND event_id IN (SELECT return_id FROM concerned))
      OR event_key IN (SELECT event_key FROM concerned)
    )
)
SELECT kind, event_key, event_id, part, event_at, decision, abuse_score, model_version, value, signals, identities,
  sample_key
FROM events
WHERE newest = 1
ORDER BY event_at, event_key, part
