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
		top     int64 // the highest logged version read
	)
	err := s.read(ctx, "follow changes", func(t txn) error {
		r, err := t.single(stmtChangesFollow, map[string]any{"project": project, "since": max(since, 0)})
		if err != nil || r == nil {
			return err
		}
		version = num(r.Values[0])
		changes, _ := r.Values[1].([]any)
		count, whole, ids, top = int64(len(changes)), false, ids[:0], 0
		for _, c := range changes {
			m, _ := c.(map[string]any)
			if v := num(m["version"]); v > top {
				top = v
			}
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
	case version < since, whole:
		return version, nil, true
	case count == version-since-1 && (count == 0 || top == version-1):
		// Neo4j's read-committed reads are not atomic over a write being
		// applied: this read saw the latest write's counter bump and not
		// yet its log entry. Writes of a project are serialised by that
		// counter's lock, so only the latest can be in flight: report the
		// ones before it and read it at the next look.
		return version - 1, distinct(ids), true
	case count != version-since:
		return version, nil, true // a gap: more writes than the log keeps
	}
	return version, distinct(ids), true
}
