package neo4jstore

import (
	"context"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
)

var _ core.ChangeFollower = (*Neo4jStore)(nil)

// FollowChanges tells changed of the notes other Stores write to project
// (see core.ChangeFollower), from the change log every write leaves
// ((:GraphChange {version, ids, writer}), write_bump_version): each look
// is one read of the entries after the last version seen (changes_follow:
// a few db hits while nothing changed). An entry another Store wrote
// reports its IDs; one without IDs (a write of over 5,000 notes), a gap
// (more writes since the last look than the log keeps) or a counter that
// went back (the project was wiped) reports nil. Errors are logged at debug
// level (the store's own outage logging covers the server) and the next
// look tries again from the same version.
func (s *Neo4jStore) FollowChanges(ctx context.Context, project string, interval time.Duration, changed func(ids []string)) {
	if interval <= 0 {
		interval = time.Second
	}
	since := int64(-1) // unknown until the first look, which reports nothing
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if next, ids, ok := s.followOnce(ctx, project, since); ok {
			if since >= 0 && (ids == nil || len(ids) > 0) {
				changed(ids)
			}
			since = next
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// followOnce reads the changes after since. It returns the version read,
// the IDs other Stores wrote (nil: unknown which), and false after an
// error. A since below 0 reads only the version.
func (s *Neo4jStore) followOnce(ctx context.Context, project string, since int64) (int64, []string, bool) {
	var (
		version int64
		ids     = []string{}
		whole   bool
		count   int64
	)
	err := s.read(ctx, "follow changes", func(t txn) error {
		r, err := t.single(stmtChangesFollow, map[string]any{"project": project, "since": max(since, 0)})
		if err != nil || r == nil {
			return err
		}
		version = num(r.Values[0])
		changes, _ := r.Values[1].([]any)
		count, whole, ids = int64(len(changes)), false, ids[:0]
		for _, c := range changes {
			m, _ := c.(map[string]any)
			if w, _ := m["writer"].(string); m != nil && w == s.holder {
				continue // this Store's write: its process told its clients
			}
			if m == nil || m["ids"] == nil {
				whole = true
				continue
			}
			ids = append(ids, strs(m["ids"])...)
		}
		return nil
	})
	if err != nil {
		if ctx.Err() == nil {
			s.log.Debug("neo4j: following other replicas' writes failed; trying again", "project", project, "err", err)
		}
		return since, nil, false
	}
	switch {
	case since < 0:
		return version, []string{}, true
	case version < since, count != version-since, whole:
		return version, nil, true
	}
	return version, distinct(ids), true
}
