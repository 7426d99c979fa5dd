package neo4jstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

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
	// if not, the statement runs again with the titles. With the catalog's
	// links, the catalog also picks the neighbours (contextFromCatalog).
	cat := s.catalog(project)
	if cat != nil && st != stmtNoteContextNone {
		nc, stale, err := s.contextFromCatalog(ctx, project, id, q, cat, st == stmtNoteContextBalanced)
		if nc != nil || err != nil {
			return nc, err
		}
		if stale {
			cat = nil // behind the database: read with the titles
		}
	}
	rc, version, err := s.noteContext(ctx, project, id, q, st, cat == nil, nil)
	if err != nil {
		return nil, err
	}
	if cat != nil {
		if version != cat.version {
			s.staleCatalog(project, cat)
			if rc, _, err = s.noteContext(ctx, project, id, q, st, true, nil); err != nil {
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
		rc.neighbors = balancedNeighbors(rc.neighbors, q.Limit)
	}
	return rc.views(q.SkipNote), nil
}

// contextFromCatalog answers NoteContext for a query with neighbours from
// the catalog's links: it picks the neighbours in process (in ID order, as
// the note_context statements order them) and reads them with the note in
// one statement (note_context_ids), which checks the change counter. It
// answers nil, with no error, when the catalog cannot answer: its links
// are not complete, it does not hold the note (a note it has not caught
// up with, or none), or (stale) the counter has moved since it was read
// (it catches up in the background); the caller then reads with a
// note_context statement. A note missing from the database is
// core.ErrNotFound either way.
func (s *Neo4jStore) contextFromCatalog(ctx context.Context, project, id string, q core.ContextQuery, cat *catalog, balanced bool) (nc *core.NoteContext, stale bool, err error) {
	l := cat.pathLinks()
	if l == nil {
		return nil, false, nil
	}
	picked, ok := cat.contextNeighbors(l, id, q.Direction, q.Limit, balanced)
	if !ok {
		return nil, false, nil
	}
	rc, version, err := s.noteContext(ctx, project, id, q, stmtNoteContextIDs, false, picked)
	if err != nil {
		return nil, false, err
	}
	if version != cat.version {
		s.staleCatalog(project, cat)
		return nil, true, nil
	}
	// COLLECT keeps no order: restore the catalog's.
	at := make(map[string]int, len(picked))
	for i, p := range picked {
		at[p[0].(string)] = i
	}
	slices.SortFunc(rc.neighbors, func(a, b core.Neighbor) int { return cmp.Compare(at[a.Note.ID], at[b.Note.ID]) })
	cat.addTitles(rc.titles, rc.note)
	for _, n := range rc.neighbors {
		cat.addTitles(rc.titles, n.Note)
	}
	if balanced {
		rc.neighbors = balancedNeighbors(rc.neighbors, q.Limit)
	}
	return rc.views(q.SkipNote), false, nil
}

// contextNeighbors lists, as note_context_ids takes them ([id, "out" or
// "in"] pairs), the neighbours of id that the note_context statement for
// dir, limit and balanced would read: the notes it links to, then (both
// directions) those linking to it that it does not link to, each side in
// ID order; up to limit in all, or with balanced up to limit of each side
// (which balancedNeighbors then shares out). ok is false when the catalog
// does not hold id or dir is not a direction.
func (c *catalog) contextNeighbors(l *links, id string, dir core.Direction, limit int, balanced bool) ([][]any, bool) {
	i, found := slices.BinarySearch(c.ids, id)
	if !found {
		return nil, false
	}
	if limit <= 0 {
		limit = math.MaxInt
	}
	var out, in []int32
	switch dir {
	case core.DirectionOut:
		out = l.from(int32(i))
	case core.DirectionIn:
		in = l.to(int32(i))
	case core.DirectionBoth:
		out = l.from(int32(i))
		inLimit := limit
		if !balanced {
			inLimit = max(limit-len(out), 0)
		}
		for _, j := range l.to(int32(i)) {
			if len(in) == inLimit {
				break
			}
			if _, both := slices.BinarySearch(out, j); !both {
				in = append(in, j)
			}
		}
	default:
		return nil, false
	}
	out = out[:min(len(out), limit)]
	if !balanced {
		in = in[:min(len(in), limit-len(out))]
	}
	in = in[:min(len(in), limit)]
	picked := make([][]any, 0, len(out)+len(in))
	for _, j := range out {
		picked = append(picked, []any{c.ids[j], string(core.DirectionOut)})
	}
	for _, j := range in {
		picked = append(picked, []any{c.ids[j], string(core.DirectionIn)})
	}
	return picked, true
}

// balancedNeighbors keeps of neighbours (outgoing, then incoming, each by ID, up to
// limit of each as note_context_balanced reads them) those a Balanced
// ContextQuery shows: the first of each side as core.SplitNeighbors
// shares limit.
func balancedNeighbors(neighbors []core.Neighbor, limit int) []core.Neighbor {
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
// picked are note_context_ids' neighbours (nil for the other statements).
func (s *Neo4jStore) noteContext(ctx context.Context, project, id string, q core.ContextQuery, st statement, titles bool, picked [][]any) (*readContext, int64, error) {
	params := map[string]any{"project": project, "id": id, "limit": limitParam(q.Limit), "withNote": !q.SkipNote, "titles": titles}
	if st == stmtNoteContextIDs {
		rows := make([]any, len(picked))
		for i, p := range picked {
			rows[i] = p
		}
		params["neighbors"] = rows
	}
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
