-- Every feedback row since a day as it now stands (its latest revision): disputes, the dispositions
-- of returned lines and resolved reviews.
-- parameters: merchant_id, from_day
WITH revisions AS (
  SELECT
    kind, feedback_id, order_id, dispute_status, return_id, line, item_condition, disposition_outcome, event_key,
    review_outcome, feedback_at,
    row_number() OVER (
      PARTITION BY kind, feedback_id, coalesce(line, -1) ORDER BY revision DESC, changed_at DESC
    ) AS newest
  FROM feedback
  WHERE merchant_id = ? AND day >= ?
)
SELECT kind, feedback_id, order_id, dispute_status, return_id, line, item_condition, disposition_outcome, event_key,
  review_outcome, feedback_at
FROM revisions
WHERE newest = 1
ORDER BY feedback_at, feedback_id, line
