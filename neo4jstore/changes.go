package neo4jstore

import (
	"context"
	"fmt"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/vaultgraph/vaultgraph/core"
)

// The change log is (:NoteChange) nodes carrying their project, one per
// change, keyed by core.NoteChange.Key (a zero-padded time, so key order
// is time order and a page is one index range). Times are nanoseconds
// since the epoch.

// pruneBatch bounds the changes one prune statement deletes, so that a
// prune of a large log stays many small transactions.
const pruneBatch = 10_000

func changeProps(c core.NoteChange) map[string]any {
	return map[string]any{
		"at_ns": c.At.UnixNano(), "kind": string(c.Kind), "note": c.ID, "path": c.Path,
		"old_note": c.OldID, "old_path": c.OldPath, "title": c.Title, "hash": c.Hash,
		"size_before": c.SizeBefore, "size_after": c.SizeAfter,
		"actor": c.Actor.ID, "actor_email": c.Actor.Email, "actor_name": c.Actor.Name,
	}
}

// AppendChanges logs changes in order, in one transaction: each is
// compared with the newest change of its note, which the ones before it
// in the batch may be.
func (s *Neo4jStore) AppendChanges(ctx context.Context, project string, changes []core.NoteChange) error {
	if len(changes) == 0 {
		return nil
	}
	for _, c := range changes {
		if c.Key == "" {
			return fmt.Errorf("neo4jstore: append changes: %w", core.InvalidArgument("a change of %s has no key", c.Path))
		}
	}
	return s.write(ctx, "append changes", func(t txn) error {
		for _, c := range changes {
			if _, err := t.collect(stmtChangeAppend, map[string]any{"project": project, "key": c.Key, "props": changeProps(c)}); err != nil {
				return err
			}
		}
		return nil
	})
}

// Changes runs change_page.
func (s *Neo4jStore) Changes(ctx context.Context, project string, q core.ChangeQuery) ([]core.NoteChange, error) {
	if q.Limit <= 0 {
		return nil, fmt.Errorf("neo4jstore: changes: %w", core.InvalidArgument("limit must be positive, got %d", q.Limit))
	}
	before := q.Before
	if before == "" {
		before = "~" // above every key: keys are digits, '-' and hex
	}
	var since int64
	if !q.Since.IsZero() {
		since = q.Since.UnixNano()
	}
	var out []core.NoteChange
	err := s.read(ctx, "read changes", func(t txn) error {
		records, err := t.collect(stmtChangePage, map[string]any{"project": project, "before": before, "since_ns": since, "limit": int64(q.Limit)})
		if err != nil {
			return err
		}
		out = make([]core.NoteChange, 0, len(records))
		for _, r := range records {
			out = append(out, changeOf(r))
		}
		return nil
	})
	return out, err
}

// changeOf decodes a record of change_page or change_last.
func changeOf(r *neo4j.Record) core.NoteChange {
	get := func(k string) any { v, _ := r.Get(k); return v }
	return core.NoteChange{
		Key: str(get("key")), At: time.Unix(0, num(get("at_ns"))).UTC(), Kind: core.ChangeKind(str(get("kind"))),
		ID: str(get("note")), Path: str(get("path")), OldID: str(get("old_note")), OldPath: str(get("old_path")),
		Title: str(get("title")), Hash: str(get("hash")), SizeBefore: num(get("size_before")), SizeAfter: num(get("size_after")),
		Actor: core.Actor{ID: str(get("actor")), Email: str(get("actor_email")), Name: str(get("actor_name"))},
	}
}

// LastChange runs change_last (the (project, note) index).
func (s *Neo4jStore) LastChange(ctx context.Context, project, id string) (*core.NoteChange, error) {
	var out *core.NoteChange
	err := s.read(ctx, "read a note's last change", func(t txn) error {
		out = nil
		records, err := t.collect(stmtChangeLast, map[string]any{"project": project, "note": id})
		if err != nil || len(records) == 0 {
			return err
		}
		c := changeOf(records[0])
		out = &c
		return nil
	})
	return out, err
}

// PruneChanges deletes by age, then beyond keep, pruneBatch at a time.
func (s *Neo4jStore) PruneChanges(ctx context.Context, project string, before time.Time, keep int) (int, error) {
	below := fmt.Sprintf("%020d", max(before.UnixNano(), 0))
	total := 0
	for _, step := range []struct {
		st     statement
		params map[string]any
	}{
		{stmtChangePruneAge, map[string]any{"project": project, "below": below, "batch": int64(pruneBatch)}},
		{stmtChangePruneKeep, map[string]any{"project": project, "keep": int64(max(keep, 0)), "batch": int64(pruneBatch)}},
	} {
		for {
			n := 0
			err := s.write(ctx, "prune changes", func(t txn) error {
				records, err := t.collect(step.st, step.params)
				if err == nil && len(records) > 0 {
					n = int(num(records[0].Values[0]))
				}
				return err
			})
			if err != nil {
				return total, err
			}
			total += n
			if n < pruneBatch {
				break
			}
		}
	}
	return total, nil
}
