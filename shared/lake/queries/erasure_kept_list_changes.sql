-- One partition of list_changes without an erased customer's rows: what its files are rewritten
-- with (docs/privacy.md). The match is erasure_partitions.sql's for this table.
-- parameters: merchant_id, kind, day, names, names, names
SELECT entry_id, list, identity_kind, digest, source, created_at, effective_at, expires_at, cause, revision,
  changed_at
FROM list_changes
WHERE merchant_id = ? AND kind = ? AND day = ?
  AND NOT (
    strpos(?, concat(chr(31), coalesce(identity_kind, ''), '#', coalesce(digest, ''), chr(31))) > 0
    OR strpos(?, concat(chr(31), 'entry:', coalesce(entry_id, ''), chr(31))) > 0
    OR strpos(?, concat(chr(31), coalesce(cause, ''), chr(31))) > 0
  )
