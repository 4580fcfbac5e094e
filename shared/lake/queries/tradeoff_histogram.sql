-- The trade-off report's histogram for one merchant and kind (shared/lake/tradeoff-histogram.ts):
-- every decision part of the window at its latest revision, labelled as of label_now by the rules of
-- shared/learning/labels.ts (test/lake/tradeoff-histogram.test.ts checks they agree), then counted by status
-- (settled, open: no label yet or a provisional one, censored: declined without feedback), score,
-- label and value band. Bounded in rows whatever the window holds: 101 scores x 2 labels x the bands.
-- Revisions are ranked on narrow columns only: the wide identities are unnested for account kinds
-- alone, kept only where they are in the small set abuse lands on, and matched to a part's latest
-- revision after that, so a month of 30 million logins never sorts its identities.
-- parameters: merchant_id, kind, from_day, to_day, label_now, merchant_id, from_day, merchant_id, from_day, merchant_id, from_day, merchant_id, kind, from_day, to_day, kind, label_window_ms, kind, kind, label_now, label_window_ms, value_bands_per_e
WITH events AS (
  SELECT event_key, event_id, part, revision, changed_at, event_at, decision, abuse_score, value,
    row_number() OVER (PARTITION BY event_key, part ORDER BY revision DESC, changed_at DESC) AS newest
  FROM decided_events
  WHERE merchant_id = ? AND kind = ? AND day BETWEEN ? AND ?
),
own AS (
  SELECT event_key, event_id, part, revision, changed_at, event_at, decision, abuse_score, value
  FROM events
  WHERE newest = 1 AND event_at <= ?
),
revisions AS (
  SELECT kind, feedback_id, order_id, dispute_status, return_id, line, item_condition, disposition_outcome,
    event_key, review_outcome, feedback_at,
    row_number() OVER (
      PARTITION BY kind, feedback_id, coalesce(line, -1) ORDER BY revision DESC, changed_at DESC
    ) AS newest
  FROM feedback
  WHERE merchant_id = ? AND day >= ?
),
fb AS (
  SELECT kind, feedback_id, order_id, dispute_status, return_id, line, item_condition, disposition_outcome,
    event_key, review_outcome, feedback_at
  FROM revisions
  WHERE newest = 1
),
-- The events feedback concerns, of any kind: where abuse lands on identities. Found on narrow
-- columns (ids and keys); identities are read for those events only.
concerned AS (
  SELECT DISTINCT event_key
  FROM decided_events
  WHERE merchant_id = ? AND day >= ?
    AND (
      (kind = 'order' AND event_id IN (SELECT order_id FROM fb))
      OR (kind = 'return' AND event_id IN (SELECT return_id FROM fb))
      OR event_key IN (SELECT event_key FROM fb)
    )
),
sourced AS (
  SELECT d.kind, d.event_key, d.event_id, d.event_at, d.identities,
    row_number() OVER (PARTITION BY d.event_key ORDER BY d.revision DESC, d.changed_at DESC) AS newest
  FROM decided_events AS d
  JOIN concerned AS c ON c.event_key = d.event_key
  WHERE d.merchant_id = ? AND d.day >= ?
),
source AS (
  SELECT kind, event_key, event_id, event_at, identities FROM sourced WHERE newest = 1
),
disputes AS (
  SELECT order_id,
    max(CASE WHEN dispute_status = 'LOST' THEN 1 ELSE 0 END) AS lost,
    max(CASE WHEN dispute_status IN ('OPEN', 'RESPONDED') THEN 1 ELSE 0 END) AS pending
  FROM fb
  WHERE kind = 'dispute'
  GROUP BY order_id
),
-- An event's latest review wins, as labels.ts reads feedback in time order.
reviews AS (
  SELECT event_key, review_outcome,
    row_number() OVER (PARTITION BY event_key ORDER BY feedback_at DESC, feedback_id DESC) AS newest
  FROM fb
  WHERE kind = 'review'
),
review AS (
  SELECT event_key, review_outcome FROM reviews WHERE newest = 1
),
-- HEAVILY_USED (without an abusive outcome, which makes the line abusive anyway) is abuse when an
-- earlier one (by time, return, line) shares an identity of its return.
heavy AS (
  SELECT f.return_id, f.line, f.feedback_at, coalesce(u.identity, concat('return#', f.return_id)) AS identity
  FROM fb AS f
  LEFT JOIN (
    SELECT s.event_id, v.identity
    FROM source AS s
    CROSS JOIN UNNEST(s.identities) AS v (identity)
    WHERE s.kind = 'return'
  ) AS u ON u.event_id = f.return_id
  WHERE f.kind = 'disposition' AND f.item_condition = 'HEAVILY_USED'
    AND coalesce(f.disposition_outcome, '') <> 'REMOVE_SUSPECT_ABUSE'
),
abusive_lines AS (
  SELECT return_id, line
  FROM fb
  WHERE kind = 'disposition'
    AND (item_condition IN ('EMPTY_BOX', 'COUNTERFEIT_ITEM') OR disposition_outcome = 'REMOVE_SUSPECT_ABUSE')
  UNION
  SELECT h.return_id, h.line
  FROM heavy AS h
  JOIN heavy AS e ON e.identity = h.identity
    AND (
      e.feedback_at < h.feedback_at
      OR (e.feedback_at = h.feedback_at AND (e.return_id < h.return_id OR (e.return_id = h.return_id AND e.line < h.line)))
    )
),
-- Where account events inherit abuse: LOST orders' and abusive returns' identities, and the device of
-- an event reviewed as abuse (a takeover's account and e-mail are the victim's).
abuse_at AS (
  SELECT v.identity, s.event_at AS at
  FROM source AS s
  CROSS JOIN UNNEST(s.identities) AS v (identity)
  WHERE (s.kind = 'order' AND s.event_id IN (SELECT order_id FROM disputes WHERE lost = 1))
    OR (s.kind = 'return' AND s.event_id IN (SELECT return_id FROM abusive_lines))
  UNION ALL
  SELECT v.identity, s.event_at AS at
  FROM source AS s
  CROSS JOIN UNNEST(s.identities) AS v (identity)
  WHERE s.event_key IN (SELECT event_key FROM review WHERE review_outcome = 'abuse')
    AND v.identity LIKE 'device#%'
),
-- Account events whose customer, e-mail or device abuse lands on: the window's identities are kept
-- where they are among the few abuse lands on, then matched to their part's latest revision and to
-- the time abuse landed. The identities are unnested in a query of their own and filtered outside
-- it: filtered inside, DuckDB unnests them by a lateral join, twenty times slower.
abused AS (
  SELECT event_key, part, revision, changed_at, identity
  FROM (
    SELECT e.event_key, e.part, e.revision, e.changed_at, u.identity
    FROM (
      SELECT event_key, part, revision, changed_at, identities
      FROM decided_events
      WHERE merchant_id = ? AND kind = ? AND day BETWEEN ? AND ?
    ) AS e
    CROSS JOIN UNNEST(e.identities) AS u (identity)
  ) AS unnested
  WHERE identity IN (
    SELECT identity FROM abuse_at
    WHERE identity LIKE 'customer#%' OR identity LIKE 'email#%' OR identity LIKE 'device#%'
  )
),
linked AS (
  SELECT DISTINCT o.event_key
  FROM abused AS b
  JOIN own AS o ON o.event_key = b.event_key AND o.part = b.part AND o.revision = b.revision
    AND o.changed_at = b.changed_at
  JOIN abuse_at AS a ON a.identity = b.identity
  WHERE ? IN ('signup', 'login', 'account')
    AND a.at >= o.event_at AND a.at <= o.event_at + ?
),
judged AS (
  SELECT o.event_at, o.decision, o.abuse_score, coalesce(o.value, 0) AS value,
    coalesce(d.lost, 0) AS lost, coalesce(d.pending, 0) AS pending, r.review_outcome,
    CASE WHEN l.return_id IS NULL THEN 0 ELSE 1 END AS abusive_line,
    CASE WHEN k.event_key IS NULL THEN 0 ELSE 1 END AS linked
  FROM own AS o
  LEFT JOIN disputes AS d ON ? = 'order' AND d.order_id = o.event_id
  LEFT JOIN abusive_lines AS l ON ? = 'return' AND l.return_id = o.event_id AND l.line = o.part
  LEFT JOIN linked AS k ON k.event_key = o.event_key
  LEFT JOIN review AS r ON r.event_key = o.event_key
),
labelled AS (
  SELECT event_at, decision, abuse_score, value,
    CASE
      WHEN lost = 1 OR abusive_line = 1 THEN 1
      WHEN review_outcome = 'abuse' THEN 1
      WHEN review_outcome = 'legitimate' THEN 0
      WHEN pending = 1 OR linked = 1 THEN 1
      ELSE 0
    END AS label,
    CASE WHEN lost = 0 AND abusive_line = 0 AND review_outcome IS NOT NULL THEN 1 ELSE 0 END AS final,
    CASE
      WHEN lost = 0 AND abusive_line = 0 AND review_outcome IS NULL AND pending = 0 AND linked = 0 THEN 1
      ELSE 0
    END AS no_feedback
  FROM judged
),
statuses AS (
  SELECT abuse_score, label, value,
    CASE
      WHEN decision = 'DECLINE' AND no_feedback = 1 THEN 'censored'
      WHEN final = 0 AND ? - event_at < ? THEN 'open'
      ELSE 'settled'
    END AS status
  FROM labelled
)
SELECT status,
  CASE WHEN status = 'settled' THEN CAST(round(abuse_score) AS integer) END AS score,
  CASE WHEN status = 'settled' THEN label END AS label,
  CASE WHEN status = 'settled' THEN CAST(floor(ln(1 + value) * ?) AS integer) END AS value_band,
  count(*) AS parts,
  sum(value) AS value_sum
FROM statuses
GROUP BY 1, 2, 3, 4
ORDER BY 1, 2, 3, 4
