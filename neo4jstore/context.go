package neo4jstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/vaultgraph/vaultgraph/core"
)

// NoteContext reads a note, its neighbours, its degree and the titles of
// their links in one statement (core.ContextReader): get_node and
// get_neighbors take one round trip instead of up to four. Neighbours are
// read from their heads (see noteDoc), not their whole docs.
func (s *Neo4jStore) NoteContext(ctx context.Context, project, id string, q core.ContextQuery) (*core.NoteContext, error) {
	var st statement
	switch q.Direction {
	case "":
		st = stmtNoteContextNone
	case core.DirectionOut:
		st = stmtNoteContextOut
	case core.DirectionIn:
		st = stmtNoteContextIn
	case core.DirectionBoth:
		st = stmtNoteContextBoth
		if q.Balanced && q.Limit > 0 {
			st = stmtNoteContextBalanced
		}
	default:
		return nil, fmt.Errorf("neo4jstore: read around %s: %w", id, core.InvalidArgument("direction must be one of in, out, both, got %q", q.Direction))
	}
	// With a catalog, the statement leaves the link titles out and the
	// catalog gives them, if it is as current as the statement's counter;
	// if not, the statement runs again with the titles.
	cat := s.catalog(project)
	rc, version, err := s.noteContext(ctx, project, id, q, st, cat == nil)
	if err != nil {
		return nil, err
	}
	if cat != nil {
		if version != cat.version {
			s.staleCatalog(project, cat)
			if rc, _, err = s.noteContext(ctx, project, id, q, st, true); err != nil {
				return nil, err
			}
		} else {
			cat.addTitles(rc.titles, rc.note)
			for _, n := range rc.neighbors {
				cat.addTitles(rc.titles, n.Note)
			}
		}
	}
	if st == stmtNoteContextBalanced {
		rc.neighbors = balanced(rc.neighbors, q.Limit)
	}
	return rc.views(q.SkipNote), nil
}

// balanced keeps of neighbours (outgoing, then incoming, each by ID, up to
// limit of each as note_context_balanced reads them) those a Balanced
// ContextQuery shows: the first of each side as core.SplitNeighbors
// shares limit.
func balanced(neighbors []core.Neighbor, limit int) []core.Neighbor {
	out := 0
	for out < len(neighbors) && neighbors[out].Direction == core.DirectionOut {
		out++
	}
	takeOut, takeIn := core.SplitNeighbors(limit, out, len(neighbors)-out)
	return append(neighbors[:takeOut:takeOut], neighbors[out:out+takeIn]...)
}

// readContext is what a note_context statement answers, before its notes
// become views.
type readContext struct {
	note      core.Note
	neighbors []core.Neighbor
	degree    core.Degree
	titles    map[string]string // ID → title of the notes' link targets
}

// views is rc as ContextReader answers it.
func (rc *readContext) views(skipNote bool) *core.NoteContext {
	nc := &core.NoteContext{Degree: rc.degree, Neighbors: make([]core.NeighborView, len(rc.neighbors))}
	if !skipNote {
		nc.Note = core.ViewOf(&rc.note, rc.titles)
	}
	for i := range rc.neighbors {
		n := &rc.neighbors[i]
		nc.Neighbors[i] = core.NeighborView{NodeView: core.ViewOf(&n.Note, rc.titles), Direction: n.Direction}
	}
	return nc
}

// noteContext runs one note_context statement, with the titles or without.
func (s *Neo4jStore) noteContext(ctx context.Context, project, id string, q core.ContextQuery, st statement, titles bool) (*readContext, int64, error) {
	params := map[string]any{"project": project, "id": id, "limit": limitParam(q.Limit), "withNote": !q.SkipNote, "titles": titles}
	var nc *readContext
	var version int64
	err := s.read(ctx, "read around a note", func(t txn) error {
		nc = nil
		r, err := t.single(st, params)
		if err != nil || r == nil {
			return err
		}
		out := &readContext{
			degree: core.Degree{In: int(num(r.Values[3])), Out: int(num(r.Values[4]))},
			titles: map[string]string{},
		}
		if !q.SkipNote {
			if out.note, err = decodeNote(project, r.Values[0], r.Values[1], r.Values[2]); err != nil {
				if errors.Is(err, errVanished) {
					return nil
				}
				return err
			}
		}
		addTitles(out.titles, r.Values[5])
		version = num(r.Values[7])
		list, _ := r.Values[6].([]any)
		seen := make(map[string]bool, len(list))
		for _, v := range list {
			row, _ := v.([]any)
			if len(row) != 5 {
				return fmt.Errorf("read around %s: neighbour row of %d values", id, len(row))
			}
			n, err := decodeHead(project, row[0], row[1], row[2])
			if errors.Is(err, errVanished) {
				continue
			}
			if err != nil {
				return err
			}
			if seen[n.ID] { // see Neighbors
				continue
			}
			seen[n.ID] = true
			out.neighbors = append(out.neighbors, core.Neighbor{Note: n, Direction: core.Direction(str(row[3]))})
			addTitles(out.titles, row[4])
		}
		nc = out
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	if nc == nil {
		return nil, 0, fmt.Errorf("neo4jstore: read around %s: %w", id, core.ErrNotFound)
	}
	return nc, version, nil
}

// addTitles adds [[id, title], ...] pairs, as the note_context statements
// return them, to titles.
func addTitles(titles map[string]string, v any) {
	pairs, _ := v.([]any)
	for _, p := range pairs {
		if pair, ok := p.([]any); ok && len(pair) == 2 {
			titles[str(pair[0])] = str(pair[1])
		}
	}
}
