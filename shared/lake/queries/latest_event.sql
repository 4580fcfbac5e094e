-- The latest event time a merchant has sent, of any kind, since a day: training's "now".
-- parameters: merchant_id, from_day
SELECT max(event_at) AS latest
FROM decided_events
WHERE merchant_id = ? AND day >= ?
