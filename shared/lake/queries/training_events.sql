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
-- The latest revision decides: a part qualifies by its latest revision's sample key and identities,
-- and an event with feedback lends its latest revision's identities (as training_sources.sql reads it).
-- parameters: merchant_id, from_day, link_identities, merchant_id, from_day, merchant_id, from_day, merchant_id, kind, from_day, to_day, merchant_id, kind, from_day, to_day, link_identities, negative_rate, merchant_id, kind, from_day, to_day
WITH concerned AS (
  SELECT order_id, return_id, event_key
  FROM feedback
  WHERE merchant_id = ? AND day >= ?
),
-- The events feedback concerns, found on narrow columns (ids and keys), at their latest revision;
-- only their identities are unnested, not those of every event of the window.
concerned_events AS (
  SELECT event_key, identities
  FROM (
    SELECT d.event_key, d.identities,
      row_number() OVER (PARTITION BY d.event_key, d.part ORDER BY d.revision DESC, d.changed_at DESC) AS newest
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
  ) AS ranked
  WHERE newest = 1
),
concerned_identities AS (
  SELECT DISTINCT v.identity
  FROM concerned_events AS c
  CROSS JOIN UNNEST(c.identities) AS v (identity)
),
revisions AS (
  SELECT
    event_key, event_id, part, revision, changed_at, sample_key,
    row_number() OVER (PARTITION BY event_key, part ORDER BY revision DESC, changed_at DESC) AS newest
  FROM decided_events
  WHERE merchant_id = ? AND kind = ? AND day BETWEEN ? AND ?
),
-- Events whose latest revision shares an identity with one of those. The identities are unnested in
-- a query of their own and filtered outside it: filtered inside, DuckDB unnests them by a lateral
-- join, twenty times slower.
linked AS (
  SELECT DISTINCT r.event_key
  FROM (
    SELECT e.event_key, e.part, e.revision, e.changed_at, u.identity
    FROM (
      SELECT event_key, part, revision, changed_at, identities
      FROM decided_events
      WHERE merchant_id = ? AND kind = ? AND day BETWEEN ? AND ?
    ) AS e
    CROSS JOIN UNNEST(e.identities) AS u (identity)
  ) AS unnested
  JOIN revisions AS r ON r.event_key = unnested.event_key AND r.part = unnested.part
    AND r.revision = unnested.revision AND r.changed_at = unnested.changed_at
  WHERE ? AND r.newest = 1 AND unnested.identity IN (SELECT identity FROM concerned_identities)
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
