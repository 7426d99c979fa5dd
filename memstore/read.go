package memstore

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

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
	// The note (whole) and its neighbours (cut) in one transaction.
	read := found
	if !q.SkipNote {
		read = append(append(make([]*node, 0, 1+len(found)), nd), found...)
	}
	views, err := s.views(project, read, len(read)-len(found))
	if err != nil {
		return nil, fmt.Errorf("memstore: read around %s: %w", id, err)
	}
	if !q.SkipNote {
		nc.Note, views = views[0], views[1:]
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
		// A start asks twice before the load (whether the store holds
		// the vault, then the vault's index for its size): the second
		// answer is the first while no write moved the file's version.
		n := 0
		err := s.kv.View(func(tx *kv.Tx) error {
			v := tx.Version()
			c := &s.counted
			c.Lock()
			defer c.Unlock()
			if counted, ok := c.at(project, v); ok {
				n = counted
				return nil
			}
			err := tx.ForEachRaw(notesBucket(project), func(_, _ []byte) error {
				n++
				return nil
			})
			if err == nil && v != 0 {
				c.project, c.version, c.n = project, v, n
			}
			return err
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

// countedOf is the last count of project's records (CountNotes) if the
// file is still at version, else 0.
func (s *Store) countedOf(project string, version uint64) int {
	c := &s.counted
	c.Lock()
	defer c.Unlock()
	n, _ := c.at(project, version)
	return n
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
// lock (core.NoteStateReader). When the project's graph is not loaded yet
// (a restart), the load hands over the states as it reads the records
// (loadStates); otherwise they are read from the records again.
func (s *Store) NoteStates(ctx context.Context, project string, fn func(core.NoteState) error) error {
	if err := s.check(ctx); err != nil {
		return fmt.Errorf("memstore: note states: %w", err)
	}
	s.statesRead(project, 0) // until every state is given
	s.mu.RLock()
	_, loaded := s.projects[project]
	s.mu.RUnlock()
	if !loaded {
		if done, err := s.loadStates(project, fn); done || err != nil {
			return err
		}
	}
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
		states  []core.NoteState
		version uint64 // of the file the chunk was read at
		err     error
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
		// The links' strings are copied into shared blocks: nothing
		// else of the records.
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
			states, version, err := s.decodeStates(project, a, g.all[start:min(start+chunk, len(g.all))], states[:0])
			select {
			case full <- decoded{states, version, err}:
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
	var version uint64 // every chunk's, or 0 when they differ
	for i := 0; ; i++ {
		d, ok := <-full
		if !ok {
			break
		}
		if d.err != nil {
			return fmt.Errorf("memstore: note states: %w", core.NewProviderError("read state", d.err))
		}
		if i == 0 {
			version = d.version
		} else if d.version != version {
			version = 0
		}
		for _, st := range d.states {
			if err := fn(st); err != nil {
				return err
			}
		}
		clear(d.states) // no string of the chunk kept alive by the buffer
		free <- d.states
	}
	s.statesRead(project, version)
	return nil
}

// loadStates loads the project's graph (which must not be loaded yet) and
// calls fn with each note's state as the load reads its record: a
// restart reads every record once, and the vault indexes a chunk of
// states on this goroutine while the load decodes the next one on
// another (they hold different locks: the load s.mu, fn none of the
// store's). done is false when the graph was loaded meanwhile by another
// call (fn was not called: the caller reads the states of that graph).
// The background search load is not started (see graph.startSearch): the
// restart's next call to the store starts it, so it does not take a core
// from the restart.
func (s *Store) loadStates(project string, fn func(core.NoteState) error) (done bool, err error) {
	sink := &stateSink{
		full: make(chan *stateChunk, 1),
		free: make(chan *stateChunk, 2),
	}
	for range 2 {
		sink.free <- &stateChunk{states: make([]core.NoteState, 0, stateChunkSize)}
	}
	var loadErr error
	go func() {
		defer close(sink.full)
		s.mu.Lock()
		defer s.mu.Unlock()
		if _, ok := s.projects[project]; ok {
			return
		}
		g, err := s.loadGraph(project, sink)
		if err != nil {
			loadErr = core.NewProviderError("read state", err)
			return
		}
		sink.flush()
		s.projects[project] = g
		done = true
	}()
	var fnErr error
	for c := range sink.full {
		// After fn's first error the chunks are still taken (the load
		// goes on: the graph is the store's), but not handed to fn.
		for _, st := range c.states {
			if fnErr != nil {
				break
			}
			fnErr = fn(st)
		}
		c.reset()
		sink.free <- c
	}
	// sink.full is closed: the loader has returned and set done, loadErr.
	switch {
	case loadErr != nil:
		return true, fmt.Errorf("memstore: note states: %w", loadErr)
	case fnErr != nil:
		return true, fnErr
	}
	if done {
		s.statesRead(project, sink.version) // every state, read in one transaction
	}
	return done, nil
}

// stateChunkSize is how many states loadStates hands over at a time.
const stateChunkSize = 1024

// stateChunk is a buffer of states and of their links, reused.
type stateChunk struct {
	states []core.NoteState
	links  []core.Link // the states' Links are windows into it
}

// reset empties c for reuse, keeping no string alive.
func (c *stateChunk) reset() {
	clear(c.states)
	clear(c.links)
	c.states, c.links = c.states[:0], c.links[:0]
}

// stateSink takes the states of the notes a graph build decodes (see
// graph.build) and passes them a chunk at a time to loadStates. Its
// methods do nothing on a nil sink (a load for any other reason).
type stateSink struct {
	version uint64 // of the file the records were read at
	arena   *arena // the current chunk's links' Raw
	cur     *stateChunk
	full    chan *stateChunk
	free    chan *stateChunk
}

// start adds the state of nd, whose record holds size, mtime and links
// links (set by link), and returns it.
func (k *stateSink) start(nd *node, size int64, mtime time.Time, links int) *core.NoteState {
	if k == nil {
		return nil
	}
	if k.cur == nil {
		k.cur = <-k.free
		// A chunk's Raw texts are valid during fn's call only
		// (core.NoteStateReader): the vault's index does not keep them
		// (vault.entry.texts), so each chunk's go with it, not kept in
		// one arena for the whole load (20 MB at 100k notes).
		k.arena = newArena(0)
	}
	c := k.cur
	c.states = append(c.states, core.NoteState{ID: nd.ID, Path: nd.Path, Hash: nd.Hash, Size: size, ModTime: mtime})
	st := &c.states[len(c.states)-1]
	if links > 0 {
		if cap(c.links)-len(c.links) < links {
			// The states already in the chunk keep the old array.
			c.links = make([]core.Link, 0, max(links, 2*cap(c.links), 8*stateChunkSize))
		}
		n := len(c.links)
		c.links = c.links[:n+links]
		st.Links = c.links[n : n+links : n+links]
	}
	return st
}

// link sets the j-th link of st: its text as written raw, and memory's
// key and target ID of it (the build passes the ID without reading the
// target's node).
func (k *stateSink) link(st *core.NoteState, j int, raw []byte, key, target string, embed bool) {
	cl := &st.Links[j]
	cl.Raw, cl.Key, cl.Target, cl.Embed = k.arena.str(raw), key, target, embed
}

// done ends the state begun by start, passing the chunk on when full.
func (k *stateSink) done() {
	if k != nil && len(k.cur.states) == stateChunkSize {
		k.full <- k.cur
		k.cur = nil
	}
}

// flush passes on the last chunk.
func (k *stateSink) flush() {
	if k != nil && k.cur != nil && len(k.cur.states) > 0 {
		k.full <- k.cur
		k.cur = nil
	}
}

// decodeStates appends to states the states of part, a run of a graph's
// nodes in ID order, read in one transaction: the records of the run are
// a run of the bucket too, walked with one cursor (records of no node are
// skipped; a node whose record is not met has none: its state is unknown,
// and the vault reads its file).
func (s *Store) decodeStates(project string, a *arena, part []*node, states []core.NoteState) (_ []core.NoteState, version uint64, _ error) {
	err := s.kv.View(func(tx *kv.Tx) error {
		version = tx.Version()
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
	return states, version, err
}
