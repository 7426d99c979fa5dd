package neo4jstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/vaultgraph/vaultgraph/core"
)

// GetNote returns one note, or an error wrapping core.ErrNotFound.
func (s *Neo4jStore) GetNote(ctx context.Context, project, id string) (*core.Note, error) {
	var note *core.Note
	err := s.read(ctx, "get note", func(t txn) error {
		r, err := t.single(stmtReadNote, map[string]any{"project": project, "id": id})
		if err != nil || r == nil {
			note = nil
			return err
		}
		n, err := decodeNote(project, r.Values[0], r.Values[1], r.Values[2])
		if errors.Is(err, errVanished) {
			note = nil
			return nil
		}
		note = &n
		return err
	})
	if err != nil {
		return nil, err
	}
	if note == nil {
		return nil, fmt.Errorf("neo4jstore: get note %s: %w", id, core.ErrNotFound)
	}
	return note, nil
}

// GetNotes returns the existing notes among ids, in the order asked, in one
// round trip.
func (s *Neo4jStore) GetNotes(ctx context.Context, project string, ids []string) ([]core.Note, error) {
	if len(ids) == 0 {
		return []core.Note{}, nil
	}
	var notes []core.Note
	err := s.read(ctx, "get notes", func(t txn) error {
		records, err := t.collect(stmtReadNotes, map[string]any{"project": project, "ids": ids})
		if err != nil {
			return err
		}
		notes, err = decodeNotes(project, records)
		return err
	})
	return notes, err
}

// ResolveTitles maps the existing IDs among ids to their titles in one
// round trip.
func (s *Neo4jStore) ResolveTitles(ctx context.Context, project string, ids []string) (map[string]string, error) {
	titles := map[string]string{}
	if len(ids) == 0 {
		return titles, nil
	}
	err := s.read(ctx, "resolve titles", func(t txn) error {
		records, err := t.collect(stmtReadTitles, map[string]any{"project": project, "ids": distinct(ids)})
		if err != nil {
			return err
		}
		clear(titles)
		for _, r := range records {
			titles[str(r.Values[0])] = str(r.Values[1])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return titles, nil
}

// Degree returns the stored distinct in- and out-degree of id.
func (s *Neo4jStore) Degree(ctx context.Context, project, id string) (core.Degree, error) {
	var d *core.Degree
	err := s.read(ctx, "degree", func(t txn) error {
		r, err := t.single(stmtReadDegree, map[string]any{"project": project, "id": id})
		if err != nil || r == nil {
			d = nil
			return err
		}
		d = &core.Degree{In: int(num(r.Values[0])), Out: int(num(r.Values[1]))}
		return nil
	})
	if err != nil {
		return core.Degree{}, err
	}
	if d == nil {
		return core.Degree{}, fmt.Errorf("neo4jstore: degree of %s: %w", id, core.ErrNotFound)
	}
	return *d, nil
}

// CountNotes returns the number of notes in the project.
func (s *Neo4jStore) CountNotes(ctx context.Context, project string) (int, error) {
	var n int
	err := s.read(ctx, "count notes", func(t txn) error {
		r, err := t.single(stmtReadCount, map[string]any{"project": project})
		if err != nil {
			return err
		}
		n = int(num(r.Values[0]))
		return nil
	})
	return n, err
}

// NoteHashes maps every note ID of the project to its content hash. It
// first finishes the degree recount of a staged write that was cut off.
func (s *Neo4jStore) NoteHashes(ctx context.Context, project string) (map[string]string, error) {
	hashes := map[string]string{}
	err := s.read(ctx, "note hashes", func(t txn) error {
		records, err := t.collect(stmtReadHashes, map[string]any{"project": project})
		if err != nil {
			return err
		}
		clear(hashes)
		for _, r := range records {
			hashes[str(r.Values[0])] = str(r.Values[1])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Every sync starts here: the place to finish the degree recount of a
	// staged write that was cut off (see staged.go).
	ids := make([]string, 0, len(hashes))
	for id := range hashes {
		ids = append(ids, id)
	}
	if err := s.repairDegrees(ctx, project, ids); err != nil {
		return nil, err
	}
	return hashes, nil
}

// UnresolvedLinkers returns, by ID, the notes holding an unresolved link
// whose key is one of keys.
func (s *Neo4jStore) UnresolvedLinkers(ctx context.Context, project string, keys []string) ([]string, error) {
	ids := []string{}
	if len(keys) == 0 {
		return ids, nil
	}
	err := s.read(ctx, "unresolved linkers", func(t txn) error {
		records, err := t.collect(stmtReadUnresolvedLinkers, map[string]any{"project": project, "keys": distinct(keys)})
		if err != nil {
			return err
		}
		ids = ids[:0]
		for _, r := range records {
			ids = append(ids, str(r.Values[0]))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}

// decodeNotes decodes records whose first columns are id, doc and targets,
// leaving out notes deleted while the query ran (errVanished).
func decodeNotes(project string, records []*neo4j.Record) ([]core.Note, error) {
	notes := make([]core.Note, 0, len(records))
	for _, r := range records {
		n, err := decodeNote(project, r.Values[0], r.Values[1], r.Values[2])
		if errors.Is(err, errVanished) {
			continue
		}
		if err != nil {
			return nil, err
		}
		notes = append(notes, n)
	}
	return notes, nil
}
