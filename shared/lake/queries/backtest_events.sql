-- A backtest's rows (shared/lake/lake-backtest.ts): every decision part of one kind in a merchant's
-- window, each at its latest revision, with what re-deciding reads (score, signals, fields, model
-- thresholds) and what it was decided then; or the uniform sample of them whose sample_key (a hash of
-- the part, fixed across revisions) is below sample_rate (1 keeps every part).
-- parameters: merchant_id, kind, from_day, to_day, sample_rate
WITH revisions AS (
  SELECT event_key, event_id, part, event_at, decision, sub_decision, abuse_score, signals, fields,
    model_thresholds,
    row_number() OVER (PARTITION BY event_key, part ORDER BY revision DESC, changed_at DESC) AS newest
  FROM decided_events
  WHERE merchant_id = ? AND kind = ? AND day BETWEEN ? AND ? AND sample_key < ?
)
SELECT event_key, event_id, part, event_at, decision, sub_decision, abuse_score, signals, fields,
  model_thresholds
FROM revisions
WHERE newest = 1
ORDER BY event_at, event_key, part
