-- How many decision parts of one kind a merchant's window holds (revisions counted once each):
-- training's sampling rate for negatives follows from it.
-- parameters: merchant_id, kind, from_day, to_day
SELECT count(DISTINCT concat(event_key, '#', CAST(part AS varchar))) AS parts
FROM decided_events
WHERE merchant_id = ? AND kind = ? AND day BETWEEN ? AND ?
