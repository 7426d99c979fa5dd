package neo4jstore

import "context"

// DeleteNotes removes notes (see core.GraphWriter) in one transaction:
// links other notes hold to them become unresolved first (keeping the key
// they were written with), then the notes go with their relationships, then
// degrees are recounted and orphaned ghosts deleted.
func (s *Neo4jStore) DeleteNotes(ctx context.Context, project string, ids []string) (int, error) {
	ids = distinct(ids)
	if len(ids) == 0 {
		return 0, nil
	}
	var deleted int
	err := s.write(ctx, "delete notes", func(t txn) error {
		p := map[string]any{"project": project, "ids": ids, "writer": s.holder}
		if _, err := t.collect(stmtWriteBumpVersion, with(p, "changed", changedIDs(ids))); err != nil {
			return err
		}
		unlinked, err := t.single(stmtDeleteUnlinkIncoming, p)
		if err != nil {
			return err
		}
		gone, err := t.collect(stmtDeleteNotes, p)
		if err != nil {
			return err
		}
		deleted = len(gone)
		affected, keys := strs(unlinked.Values[0]), []string{}
		for _, r := range gone {
			affected = append(affected, strs(r.Values[0])...)
			keys = append(keys, strs(r.Values[1])...)
		}
		if err := updateDegrees(t, p, affected); err != nil {
			return err
		}
		return dropOrphans(t, p, keys)
	})
	s.rankWrote(project)
	if err != nil {
		return 0, err
	}
	return deleted, nil
}
