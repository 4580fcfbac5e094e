-- The decided events of one kind a training run reads (each part at its latest revision): every part
-- with feedback about it, or sharing an identity with an event that has feedback (account kinds:
-- abuse passes on through the customer, e-mail and device), and the other parts sampled at a
-- recorded rate by their sample key. Labels are not decided here: shared/learning/labels.ts labels
-- what this selects, and training keeps its negatives only where sample_key < rate, so every
-- negative is sampled at the same rate whatever brought it in.
-- The parts that qualify are chosen on narrow columns first (keys, revision, sample key, and
-- identity digests against the small set of identities of events with feedback); the wide columns
-- (signals, identities) are read and ranked for those parts only, so a month of 30 million logins
-- never sorts its signals.
-- parameters: merchant_id, from_day, link_identities, merchant_id, from_day, merchant_id, from_day, merchant_id, kind, from_day, to_day, merchant_id, kind, from_day, to_day, negative_rate, merchant_id, kind, from_day, to_day
WITH concerned AS (
  SELECT order_id, return_id, event_key
  FROM feedback
  WHERE merchant_id = ? AND day >= ?
),
-- The events feedback concerns, found on narrow columns (ids and keys); only their identities are
-- unnested, not those of every event of the window.
concerned_events AS (
  SELECT d.event_key, d.identities
  FROM decided_events AS d
  JOIN (
    SELECT DISTINCT event_key
    FROM decided_events
    WHERE ? AND merchant_id = ? AND day >= ?
      AND (
        event_id IN (SELECT order_id FROM concerned)
        OR event_id IN (SELECT return_id FROM concerned)
        OR event_key IN (SELECT event_key FROM concerned)
      )
  ) AS k ON k.event_key = d.event_key
  WHERE d.merchant_id = ? AND d.day >= ?
),
concerned_identities AS (
  SELECT DISTINCT v.identity
  FROM concerned_events AS c
  CROSS JOIN UNNEST(c.identities) AS v (identity)
),
linked AS (
  SELECT DISTINCT e.event_key
  FROM decided_events AS e
  CROSS JOIN UNNEST(e.identities) AS u (identity)
  WHERE e.merchant_id = ? AND e.kind = ? AND e.day BETWEEN ? AND ?
    AND u.identity IN (SELECT identity FROM concerned_identities)
),
revisions AS (
  SELECT
    event_key, event_id, part, sample_key,
    row_number() OVER (PARTITION BY event_key, part ORDER BY revision DESC, changed_at DESC) AS newest
  FROM decided_events
  WHERE merchant_id = ? AND kind = ? AND day BETWEEN ? AND ?
),
qualifying AS (
  SELECT event_key, part
  FROM revisions
  WHERE newest = 1 AND (
    sample_key < ?
    OR event_id IN (SELECT order_id FROM concerned)
    OR event_id IN (SELECT return_id FROM concerned)
    OR event_key IN (SELECT event_key FROM concerned)
    OR event_key IN (SELECT event_key FROM linked)
  )
),
events AS (
  SELECT
    d.event_key, d.event_id, d.part, d.event_at, d.decision, d.abuse_score, d.model_version, d.value,
    d.signals, d.identities, d.sample_key,
    row_number() OVER (PARTITION BY d.event_key, d.part ORDER BY d.revision DESC, d.changed_at DESC) AS newest
  FROM decided_events AS d
  JOIN qualifying AS q ON q.event_key = d.event_key AND q.part = d.part
  WHERE d.merchant_id = ? AND d.kind = ? AND d.day BETWEEN ? AND ?
)
SELECT event_key, event_id, part, event_at, decision, abuse_score, model_version, value, signals, identities,
  sample_key
FROM events
WHERE newest = 1
ORDER BY event_at, event_key, part
