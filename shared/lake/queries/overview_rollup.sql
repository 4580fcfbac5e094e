-- The overview's daily rollup for one merchant and kind (shared/lake/overview-rollup.ts): every
-- decision part of the days at its latest revision, counted by UTC day, outcome, score band (of ten
-- points; 100 falls in the top band) and the workflow branch that decided (the reason's stable key).
-- Bounded in rows whatever the days hold: days x 3 outcomes x 10 bands x the merchant's branches.
-- parameters: merchant_id, kind, from_day, to_day
WITH parts AS (
  SELECT day, decision, abuse_score, sub_decision,
    row_number() OVER (PARTITION BY event_key, part ORDER BY revision DESC, changed_at DESC) AS newest
  FROM decided_events
  WHERE merchant_id = ? AND kind = ? AND day BETWEEN ? AND ?
)
SELECT day, decision,
  least(9, CAST(floor(abuse_score / 10) AS integer)) AS score_band,
  coalesce(sub_decision, '') AS sub_decision,
  count(*) AS parts
FROM parts
WHERE newest = 1 AND decision IS NOT NULL
GROUP BY 1, 2, 3, 4
ORDER BY 1, 2, 3, 4
