-- The decided events of one kind a training run reads (each part at its latest revision): every part
-- with feedback about it, or sharing an identity with an event that has feedback (account kinds:
-- abuse passes on through the customer, e-mail and device), and the other parts sampled at a
-- recorded rate by their sample key. Labels are not decided here: shared/learning/labels.ts labels
-- what this selects, and training keeps its negatives only where sample_key < rate, so every
-- negative is sampled at the same rate whatever brought it in.
-- parameters: merchant_id, kind, from_day, to_day, merchant_id, from_day, link_identities, merchant_id, from_day, negative_rate
WITH events AS (
  SELECT
    event_key, event_id, part, event_at, decision, abuse_score, model_version, value, signals, identities,
    sample_key,
    row_number() OVER (PARTITION BY event_key, part ORDER BY revision DESC, changed_at DESC) AS newest
  FROM decided_events
  WHERE merchant_id = ? AND kind = ? AND day BETWEEN ? AND ?
),
concerned AS (
  SELECT order_id, return_id, event_key
  FROM feedback
  WHERE merchant_id = ? AND day >= ?
),
linked AS (
  SELECT DISTINCT e.event_key
  FROM events AS e
  CROSS JOIN UNNEST(e.identities) AS u (identity)
  WHERE ? AND u.identity IN (
    SELECT v.identity
    FROM decided_events AS d
    CROSS JOIN UNNEST(d.identities) AS v (identity)
    WHERE d.merchant_id = ? AND d.day >= ?
      AND (
        d.event_id IN (SELECT order_id FROM concerned)
        OR d.event_id IN (SELECT return_id FROM concerned)
        OR d.event_key IN (SELECT event_key FROM concerned)
      )
  )
)
SELECT event_key, event_id, part, event_at, decision, abuse_score, model_version, value, signals, identities,
  sample_key
FROM events
WHERE newest = 1 AND (
  sample_key < ?
  OR event_id IN (SELECT order_id FROM concerned)
  OR event_id IN (SELECT return_id FROM concerned)
  OR event_key IN (SELECT event_key FROM concerned)
  OR event_key IN (SELECT event_key FROM linked)
)
ORDER BY event_at, event_key, part
