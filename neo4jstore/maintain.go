package neo4jstore

// Degree and ghost upkeep shared by UpsertNotes and DeleteNotes.

// updateDegrees recounts the stored degrees of ids.
func updateDegrees(t txn, p map[string]any, ids []string) error {
	ids = distinct(ids)
	if len(ids) == 0 {
		return nil
	}
	_, err := t.collect(stmtWriteUpdateDegrees, with(p, "ids", ids))
	return err
}

// dropOrphans deletes the ghosts of keys that no note hangs on any more.
func dropOrphans(t txn, p map[string]any, keys []string) error {
	keys = distinct(keys)
	if len(keys) == 0 {
		return nil
	}
	_, err := t.collect(stmtWriteDropOrphans, with(p, "keys", keys))
	return err
}
