-- The partitions of one merchant's lake holding rows of an erased customer (docs/privacy.md): per
-- table, kind and day, the rows to remove and the rows held. `names` is one string of the names the
-- erasure matches, each between two chr(31) (Athena's execution parameters are scalars): the
-- customer's identities as `kind#digest`, and its erased records as `event:<event_key>`,
-- `order:<id>`, `dispute:<id>`, `disposition:<return id>`, `review:<id>`, `entry:<list entry id>`.
-- The same matches as the erasure_kept_<table> queries, which rewrite each partition found here.
-- parameters: names, names, merchant_id, names, names, names, merchant_id, names, names, names, merchant_id
SELECT 'decided_events' AS lake_table, kind, day,
  sum(CASE WHEN erased THEN 1 ELSE 0 END) AS erased, count(*) AS held
FROM (
  SELECT kind, day,
    EXISTS (
      SELECT 1 FROM UNNEST(identities) AS u (identity)
      WHERE strpos(?, concat(chr(31), u.identity, chr(31))) > 0
    ) OR strpos(?, concat(chr(31), 'event:', coalesce(event_key, ''), chr(31))) > 0 AS erased
  FROM decided_events
  WHERE merchant_id = ?
) AS rows_of_decided_events
GROUP BY kind, day
HAVING sum(CASE WHEN erased THEN 1 ELSE 0 END) > 0
UNION ALL
SELECT 'feedback' AS lake_table, kind, day,
  sum(CASE WHEN erased THEN 1 ELSE 0 END) AS erased, count(*) AS held
FROM (
  SELECT kind, day,
    strpos(?, concat(chr(31), kind, ':', coalesce(feedback_id, ''), chr(31))) > 0
    OR strpos(?, concat(chr(31), 'order:', coalesce(order_id, ''), chr(31))) > 0
    OR strpos(?, concat(chr(31), 'event:', coalesce(event_key, ''), chr(31))) > 0 AS erased
  FROM feedback
  WHERE merchant_id = ?
) AS rows_of_feedback
GROUP BY kind, day
HAVING sum(CASE WHEN erased THEN 1 ELSE 0 END) > 0
UNION ALL
SELECT 'list_changes' AS lake_table, kind, day,
  sum(CASE WHEN erased THEN 1 ELSE 0 END) AS erased, count(*) AS held
FROM (
  SELECT kind, day,
    strpos(?, concat(chr(31), coalesce(identity_kind, ''), '#', coalesce(digest, ''), chr(31))) > 0
    OR strpos(?, concat(chr(31), 'entry:', coalesce(entry_id, ''), chr(31))) > 0
    OR strpos(?, concat(chr(31), coalesce(cause, ''), chr(31))) > 0 AS erased
  FROM list_changes
  WHERE merchant_id = ?
) AS rows_of_list_changes
GROUP BY kind, day
HAVING sum(CASE WHEN erased THEN 1 ELSE 0 END) > 0
ORDER BY lake_table, kind, day
