package neo4jstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/vaultgraph/vaultgraph/core"
)

// NotesByTags returns up to limit notes carrying any or all of tags, by ID.
func (s *Store) NotesByTags(ctx context.Context, project string, tags []string, mode core.TagMode, limit int) ([]core.Note, error) {
	var st statement
	switch mode {
	case core.TagModeAny:
		st = stmtTagsAny
	case core.TagModeAll:
		st = stmtTagsAll
	default:
		return nil, fmt.Errorf("neo4jstore: notes by tags: %w", core.InvalidArgument("mode must be one of any, all, got %q", mode))
	}
	norm := normalizeTags(tags)
	if len(norm) == 0 {
		return []core.Note{}, nil
	}
	var notes []core.Note
	err := s.read(ctx, "notes by tags", func(t txn) error {
		records, err := t.collect(st, map[string]any{"project": project, "tags": norm, "limit": limitParam(limit)})
		if err != nil {
			return err
		}
		notes, err = decodeNotes(project, records)
		return err
	})
	if err != nil {
		return nil, err
	}
	return notes, nil
}

// RandomNote counts the candidates, asks pick for an index and reads the
// candidate at that index in ID order from the (project, id) index. The
// count and the read are separate transactions so that pick runs exactly
// once per count even when a transaction is retried. A note deleted in
// between can leave nothing at the picked index; then it counts and picks
// again (up to maxTornReads times), since (nil, nil) means "no candidate",
// which a concurrent delete of one note does not make true (found by the
// load test, integration/e2e/load_test.go).
func (s *Store) RandomNote(ctx context.Context, project string, tags []string, pick func(n int) int) (*core.Note, error) {
	norm := normalizeTags(tags)
	count, nth := stmtReadCount, stmtRandomNth
	params := map[string]any{"project": project}
	if len(norm) > 0 {
		count, nth = stmtRandomCountTagged, stmtRandomNthTagged
		params["tags"] = norm
	}
	// The count and the pick are two reads: a note deleted in between can
	// make the pick land past the end (or on a vanished note). That is not
	// "no note matches", so count again, as reads retry a torn note.
	for range maxTornReads {
		var n int64
		err := s.read(ctx, "random note", func(t txn) error {
			r, err := t.single(count, params)
			if err != nil {
				return err
			}
			n = num(r.Values[0])
			return nil
		})
		if err != nil || n == 0 {
			return nil, err
		}
		k := pick(int(n))
		if k < 0 || int64(k) >= n {
			return nil, fmt.Errorf("neo4jstore: random note: pick(%d) returned %d, out of range", n, k)
		}
		var note *core.Note
		err = s.read(ctx, "random note", func(t txn) error {
			r, err := t.single(nth, with(params, "skip", int64(k)))
			if err != nil || r == nil {
				note = nil
				return err
			}
			got, err := decodeNote(project, r.Values[0], r.Values[1], r.Values[2])
			if errors.Is(err, errVanished) {
				note = nil
				return nil
			}
			note = &got
			return err
		})
		if err != nil || note != nil {
			return note, err
		}
	}
	return nil, nil
}
