-- One partition of feedback without an erased customer's rows: what its files are rewritten with
-- (docs/privacy.md). The match is erasure_partitions.sql's for this table.
-- parameters: merchant_id, kind, day, names, names, names
SELECT feedback_id, order_id, dispute_status, return_id, line, item_condition, disposition_outcome, event_key,
  review_outcome, feedback_at, revision, changed_at
FROM feedback
WHERE merchant_id = ? AND kind = ? AND day = ?
  AND NOT (
    strpos(?, concat(chr(31), kind, ':', coalesce(feedback_id, ''), chr(31))) > 0
    OR strpos(?, concat(chr(31), 'order:', coalesce(order_id, ''), chr(31))) > 0
    OR strpos(?, concat(chr(31), 'event:', coalesce(event_key, ''), chr(31))) > 0
  )
