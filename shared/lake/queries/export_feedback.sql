-- A merchant's feedback of one kind whose latest revision falls in a range of days, as the lake holds
-- it: one kind of a bulk export (docs/lake.md). A revision is never older than the one before it, so
-- the revisions from the first day on are enough to know which is the latest.
-- parameters: merchant_id, kind, from_day, to_day
WITH revisions AS (
  SELECT
    kind, day, feedback_id, order_id, dispute_status, return_id, line, item_condition, disposition_outcome,
    event_key, review_outcome, feedback_at, revision,
    row_number() OVER (
      PARTITION BY feedback_id, coalesce(line, -1) ORDER BY revision DESC, changed_at DESC
    ) AS newest
  FROM feedback
  WHERE merchant_id = ? AND kind = ? AND day >= ?
)
SELECT kind, day, feedback_id, order_id, dispute_status, return_id, line, item_condition, disposition_outcome,
  event_key, review_outcome, feedback_at, revision
FROM revisions
WHERE newest = 1 AND day <= ?
ORDER BY feedback_at, feedback_id, line
