package memstore

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
)

// reader returns the project's graph read-locked, with the function that
// unlocks it; g is nil (and unlock a no-op) when the project has no notes
// yet.
func (s *Store) reader(ctx context.Context, op string, project string) (g *graph, unlock func(), err error) {
	if err := s.check(ctx); err != nil {
		return nil, func() {}, fmt.Errorf("memstore: %s: %w", op, err)
	}
	g, err = s.graph(project)
	if err != nil {
		return nil, func() {}, fmt.Errorf("memstore: %s: %w", op, err)
	}
	if g == nil {
		return nil, func() {}, nil
	}
	g.mu.RLock()
	return g, g.mu.RUnlock, nil
}

// GetNote returns a copy of the note with this ID, or an error wrapping
// core.ErrNotFound.
func (s *Store) GetNote(ctx context.Context, project, id string) (*core.Note, error) {
	g, unlock, err := s.reader(ctx, "get note", project)
	defer unlock()
	if err != nil {
		return nil, err
	}
	if g != nil {
		if nd := g.notes[id]; nd != nil {
			notes, err := s.fullNotes(project, []*node{nd})
			if err != nil {
				return nil, fmt.Errorf("memstore: get note %s: %w", id, err)
			}
			return &notes[0], nil
		}
	}
	return nil, fmt.Errorf("memstore: get note %s: %w", id, core.ErrNotFound)
}

// GetNotes returns copies of the notes with these IDs in the order asked,
// leaving out missing ones.
func (s *Store) GetNotes(ctx context.Context, project string, ids []string) ([]core.Note, error) {
	g, unlock, err := s.reader(ctx, "get notes", project)
	defer unlock()
	if err != nil || g == nil {
		return nil, err
	}
	found := make([]*node, 0, len(ids))
	for _, id := range ids {
		if nd := g.notes[id]; nd != nil {
			found = append(found, nd)
		}
	}
	notes, err := s.fullNotes(project, found)
	if err != nil {
		return nil, fmt.Errorf("memstore: get notes: %w", err)
	}
	return notes, nil
}

// ResolveTitles maps each existing ID to its title.
func (s *Store) ResolveTitles(ctx context.Context, project string, ids []string) (map[string]string, error) {
	g, unlock, err := s.reader(ctx, "resolve titles", project)
	defer unlock()
	if err != nil {
		return nil, err
	}
	titles := make(map[string]string, len(ids))
	if g != nil {
		for _, id := range ids {
			if nd := g.notes[id]; nd != nil {
				titles[id] = nd.Title
			}
		}
	}
	return titles, nil
}

// Neighbors returns up to limit notes adjacent to id: outgoing first, then
// incoming ones not already listed, each group by ID. limit <= 0 means no
// limit; an unknown id has no neighbours.
func (s *Store) Neighbors(ctx context.Context, project, id string, dir core.Direction, limit int) ([]core.Neighbor, error) {
	if !dir.Valid() {
		return nil, fmt.Errorf("memstore: neighbors of %s: %w", id, core.InvalidArgument("unknown direction %q", dir))
	}
	g, unlock, err := s.reader(ctx, "neighbors", project)
	defer unlock()
	if err != nil || g == nil {
		return nil, err
	}
	nd := g.notes[id]
	if nd == nil {
		return nil, nil
	}
	found, outgoing := neighborNodes(nd, dir, limit)
	if len(found) == 0 {
		return nil, nil
	}
	notes, err := s.fullNotes(project, found)
	if err != nil {
		return nil, fmt.Errorf("memstore: neighbors of %s: %w", id, err)
	}
	out := make([]core.Neighbor, len(found))
	for i, n := range notes {
		out[i] = core.Neighbor{Note: n, Direction: core.DirectionOut}
		if i >= outgoing {
			out[i].Direction = core.DirectionIn
		}
	}
	return out, nil
}

// neighborNodes lists nd's neighbours as Neighbors orders them and how
// many of them are outgoing; the caller holds the read lock.
func neighborNodes(nd *node, dir core.Direction, limit int) (found []*node, outgoing int) {
	if limit <= 0 {
		limit = math.MaxInt
	}
	if dir != core.DirectionIn {
		found = append(found, nd.out[:min(limit, len(nd.out))]...)
	}
	outgoing = len(found)
	if dir != core.DirectionOut {
		for _, n := range nd.in {
			if len(found) >= limit {
				break
			}
			if dir == core.DirectionBoth && nd.out.contains(n.ID) {
				continue
			}
			found = append(found, n)
		}
	}
	return found, outgoing
}

// balancedNodes lists nd's neighbours as a Balanced ContextQuery shares
// limit slots (core.SplitNeighbors) and how many of them are outgoing. At
// most limit incoming ones are looked at: a hub's thousands of backlinks
// cost nothing.
func balancedNodes(nd *node, limit int) (found []*node, outgoing int) {
	var in []*node
	for _, n := range nd.in {
		if len(in) >= limit {
			break
		}
		if !nd.out.contains(n.ID) {
			in = append(in, n)
		}
	}
	takeOut, takeIn := core.SplitNeighbors(limit, len(nd.out), len(in))
	found = append(append(make([]*node, 0, takeOut+takeIn), nd.out[:takeOut]...), in[:takeIn]...)
	return found, takeOut
}

// NoteContext reads around id under one read lock (core.ContextReader).
func (s *Store) NoteContext(ctx context.Context, project, id string, q core.ContextQuery) (*core.NoteContext, error) {
	if q.Direction != "" && !q.Direction.Valid() {
		return nil, fmt.Errorf("memstore: read around %s: %w", id, core.InvalidArgument("unknown direction %q", q.Direction))
	}
	g, unlock, err := s.reader(ctx, "read around a note", project)
	defer unlock()
	if err != nil {
		return nil, err
	}
	var nd *node
	if g != nil {
		nd = g.notes[id]
	}
	if nd == nil {
		return nil, fmt.Errorf("memstore: read around %s: %w", id, core.ErrNotFound)
	}
	var found []*node
	outgoing := 0
	switch {
	case q.Balanced && q.Direction == core.DirectionBoth && q.Limit > 0:
		found, outgoing = balancedNodes(nd, q.Limit)
	case q.Direction != "":
		found, outgoing = neighborNodes(nd, q.Direction, q.Limit)
	}
	nc := &core.NoteContext{
		Degree:    core.Degree{In: len(nd.in), Out: len(nd.out)},
		Neighbors: make([]core.NeighborView, len(found)),
	}
	if !q.SkipNote {
		v, err := s.views(project, []*node{nd}, false)
		if err != nil {
			return nil, fmt.Errorf("memstore: read around %s: %w", id, err)
		}
		nc.Note = v[0]
	}
	views, err := s.views(project, found, true)
	if err != nil {
		return nil, fmt.Errorf("memstore: read around %s: %w", id, err)
	}
	for i, v := range views {
		nc.Neighbors[i] = core.NeighborView{NodeView: v, Direction: core.DirectionOut}
		if i >= outgoing {
			nc.Neighbors[i].Direction = core.DirectionIn
		}
	}
	return nc, nil
}

// Degree returns the distinct in- and out-degree of id.
func (s *Store) Degree(ctx context.Context, project, id string) (core.Degree, error) {
	g, unlock, err := s.reader(ctx, "degree", project)
	defer unlock()
	if err != nil {
		return core.Degree{}, err
	}
	if g != nil {
		if nd := g.notes[id]; nd != nil {
			return core.Degree{In: len(nd.in), Out: len(nd.out)}, nil
		}
	}
	return core.Degree{}, fmt.Errorf("memstore: degree of %s: %w", id, core.ErrNotFound)
}

// CountNotes returns the number of notes in the project. A project not
// loaded yet is counted on disk, without loading it: a start asks before
// its first sync (is the store warm?), which loads the graph while the
// vault is walked (vault.Mirror.Sync), not before.
func (s *Store) CountNotes(ctx context.Context, project string) (int, error) {
	if err := s.check(ctx); err != nil {
		return 0, fmt.Errorf("memstore: count notes: %w", err)
	}
	s.mu.RLock()
	_, loaded := s.projects[project]
	s.mu.RUnlock()
	if !loaded {
		n := 0
		err := s.kv.View(func(tx *kv.Tx) error {
			return tx.ForEachRaw(notesBucket(project), func(_, _ []byte) error {
				n++
				return nil
			})
		})
		if err != nil {
			return 0, fmt.Errorf("memstore: count notes: %w", core.NewProviderError("read state", err))
		}
		return n, nil
	}
	g, unlock, err := s.reader(ctx, "count notes", project)
	defer unlock()
	if err != nil || g == nil {
		return 0, err
	}
	return len(g.notes), nil
}

// NoteHashes maps every note ID of the project to its Hash.
func (s *Store) NoteHashes(ctx context.Context, project string) (map[string]string, error) {
	g, unlock, err := s.reader(ctx, "note hashes", project)
	defer unlock()
	if err != nil {
		return nil, err
	}
	if g == nil {
		return map[string]string{}, nil
	}
	hashes := make(map[string]string, len(g.notes))
	for id, nd := range g.notes {
		hashes[id] = nd.Hash
	}
	return hashes, nil
}

// UnresolvedLinkers returns, in ID order, the notes holding an unresolved
// link whose Key is one of keys.
func (s *Store) UnresolvedLinkers(ctx context.Context, project string, keys []string) ([]string, error) {
	g, unlock, err := s.reader(ctx, "unresolved linkers", project)
	defer unlock()
	if err != nil || g == nil {
		return nil, err
	}
	seen := map[*node]struct{}{}
	var ids []string
	for _, k := range keys {
		for n := range g.unresolved[k] {
			if _, dup := seen[n]; !dup {
				seen[n] = struct{}{}
				ids = append(ids, n.ID)
			}
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// NoteStates calls fn with every note's state under the project's read
// lock (core.NoteStateReader).
func (s *Store) NoteStates(ctx context.Context, project string, fn func(core.NoteState) error) error {
	g, unlock, err := s.reader(ctx, "note states", project)
	defer unlock()
	if err != nil || g == nil {
		return err
	}
	// Size, mtime and the links as written are on disk only: the records
	// are read a chunk at a time, each chunk in a transaction of its own,
	// and fn is called outside any transaction. A goroutine decodes the
	// next chunk while fn takes the states of this one (a restart's
	// decoding and the vault's index building run on two cores); it ends
	// before the read lock is released.
	const chunk = 1024
	type decoded struct {
		states []core.NoteState
		err    error
	}
	full := make(chan decoded, 1)
	free := make(chan []core.NoteState, 2)
	for range 2 {
		free <- make([]core.NoteState, 0, min(chunk, len(g.all)))
	}
	stop := make(chan struct{})
	var producer sync.WaitGroup
	producer.Go(func() {
		defer close(full)
		// The links' strings, which the caller may keep (the vault's
		// index does), are copied into shared blocks: nothing else of
		// the records.
		a := newArena(0)
		for start := 0; start < len(g.all); start += chunk {
			select {
			case <-stop: // fn failed: the one chunk sent meanwhile is enough
				return
			default:
			}
			var states []core.NoteState
			select {
			case states = <-free:
			case <-stop:
				return
			}
			states, err := s.decodeStates(project, a, g.all[start:min(start+chunk, len(g.all))], states[:0])
			select {
			case full <- decoded{states, err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	})
	defer producer.Wait()
	defer close(stop)
	for d := range full {
		if d.err != nil {
			return fmt.Errorf("memstore: note states: %w", core.NewProviderError("read state", d.err))
		}
		for _, st := range d.states {
			if err := fn(st); err != nil {
				return err
			}
		}
		clear(d.states) // no string of the chunk kept alive by the buffer
		free <- d.states
	}
	return nil
}

// decodeStates appends to states the states of part, a run of a graph's
// nodes in ID order, read in one transaction: the records of the run are
// a run of the bucket too, walked with one cursor (records of no node are
// skipped; a node whose record is not met has none: its state is unknown,
// and the vault reads its file).
func (s *Store) decodeStates(project string, a *arena, part []*node, states []core.NoteState) ([]core.NoteState, error) {
	err := s.kv.View(func(tx *kv.Tx) error {
		i := 0
		none := func(id []byte) {
			for i < len(part) && (id == nil || part[i].ID < unsafeString(id)) {
				st, _ := part[i].decodeState(a, nil)
				states = append(states, st)
				i++
			}
		}
		err := tx.ForEachFromRaw(notesBucket(project), part[0].ID, func(id, rec []byte) error {
			none(id)
			if i == len(part) {
				return kv.ErrStop
			}
			if part[i].ID != unsafeString(id) {
				return nil
			}
			st, err := part[i].decodeState(a, rec)
			if err != nil {
				return err
			}
			states = append(states, st)
			i++
			return nil
		})
		none(nil)
		return err
	})
	return states, err
}
