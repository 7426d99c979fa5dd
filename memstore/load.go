package memstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding/keyword"
	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
)

// loadGraph reads a project's notes from disk into a new graph (nil when
// the project holds none): its note records, then the graph built from
// them in one pass, then its vectors. The keyword index, which needs every
// note's text, is filled in the background (buildKeywords); keyword
// searches wait for it. The caller holds s.mu.
func (s *Store) loadGraph(project string) (*graph, error) {
	var notes []core.Note
	err := s.kv.View(func(tx *kv.Tx) error {
		return tx.ForEach(notesBucket(project), func(id string, rec []byte) error {
			n, err := decodeNote(project, id, rec)
			if err != nil {
				return err
			}
			notes = append(notes, n)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("load notes of %s: %w", project, err)
	}
	if len(notes) == 0 {
		return nil, nil
	}
	g := newGraph()
	g.build(notes)
	if err := s.loadTerms(project, g.search.keywords); err != nil {
		return nil, fmt.Errorf("load keyword terms of %s: %w", project, err)
	}
	// What a start does not need before it answers loads in the
	// background: vectors (searches and the embedding indexer wait for
	// them), then the keyword index (keyword searches wait).
	g.vectorsReady, g.keywordsReady = make(chan struct{}), make(chan struct{})
	go s.loadSearch(project, g)
	return g, nil
}

// loadTerms reads the keyword dictionary into an empty index: before any
// write can number a new term.
func (s *Store) loadTerms(project string, x *kwIndex) error {
	err := s.kv.View(func(tx *kv.Tx) error {
		return tx.ForEach(kwTermsBucket(project), func(key string, term []byte) error {
			if key != termKey(len(x.names)) {
				return fmt.Errorf("term %q out of order: %w", key, errBadRecord)
			}
			x.term(string(term))
			return nil
		})
	})
	x.persisted = len(x.names)
	return err
}

// loadSearch fills the search index of a graph just loaded: its vectors,
// then its keyword index, closing the ready signal of each. A failure
// leaves what was loaded (searches see less) and is retried by the next
// load.
func (s *Store) loadSearch(project string, g *graph) {
	func() {
		defer close(g.vectorsReady)
		parked := newSearchIndex()
		if err := s.loadVectors(project, parked); err != nil {
			return
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		x := g.search
		for id, sv := range parked.parked {
			if _, set := x.vectors[id]; set {
				continue // written since the load
			}
			if g.notes[id] != nil {
				x.set(id, sv.Model, sv.Hash, decodeVector(sv.Vector))
			} else {
				x.parked[id] = sv
			}
		}
	}()
	defer close(g.keywordsReady)
	missing, err := s.loadKeywords(project, g)
	if err != nil {
		return
	}
	s.buildKeywords(project, g, missing)
}

// loadKeywords puts the persisted term vectors of a graph's notes into
// its keyword index, a chunk at a time: each read in a transaction of its
// own, then applied under the write lock (never taken inside a
// transaction: a writer holds it while it commits), skipping notes written
// or deleted since the load. It returns the notes that have none (stored
// before term vectors were kept).
func (s *Store) loadKeywords(project string, g *graph) (missing []*node, err error) {
	type doc struct {
		id     string
		length int32
		vec    []byte
	}
	const chunkSize = 4096
	errChunk := errors.New("chunk full")
	x := g.search.keywords
	g.mu.RLock()
	terms := len(x.names)
	g.mu.RUnlock()
	var chunk []doc
	for from, more := "", true; more; {
		chunk = chunk[:0]
		err := s.kv.View(func(tx *kv.Tx) error {
			return tx.ForEachFrom(kwDocsBucket(project), from, func(id string, rec []byte) error {
				if len(chunk) == chunkSize {
					from = id
					return errChunk
				}
				length, n := binary.Uvarint(rec)
				if n <= 0 {
					return fmt.Errorf("term vector of %s: %w", id, errBadRecord)
				}
				vec := slices.Clone(rec[n:])
				valid := true
				eachTerm(vec, func(term, _ int32) { valid = valid && int(term) < terms })
				if !valid {
					return fmt.Errorf("term vector of %s: %w", id, errBadRecord)
				}
				chunk = append(chunk, doc{id, int32(length), vec})
				return nil
			})
		})
		switch {
		case errors.Is(err, errChunk):
		case err != nil:
			return nil, err
		default:
			more = false
		}
		g.mu.Lock()
		for _, d := range chunk {
			if nd := g.notes[d.id]; nd != nil && nd.gen == 0 { // not written since the load
				x.putVec(d.id, d.length, d.vec)
			}
		}
		g.mu.Unlock()
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	for _, nd := range g.all {
		if _, ok := x.slots[nd.id()]; !ok && nd.gen == 0 {
			missing = append(missing, nd)
		}
	}
	return missing, nil
}

// build fills an empty graph with notes as read from disk: the targets of
// their links are what the store resolved when it wrote them (a target
// that is not there, which a cut-off staged write can leave, is
// unresolved). It does in one pass what upsert does by the batch: every
// list comes out sorted because the notes are visited in ID order.
func (g *graph) build(notes []core.Note) {
	if !slices.IsSortedFunc(notes, func(a, b core.Note) int { return cmpString(a.ID, b.ID) }) {
		slices.SortFunc(notes, func(a, b core.Note) int { return cmpString(a.ID, b.ID) })
	}
	nodes := make([]node, len(notes)) // one allocation for every node
	g.all = make(nodeList, len(notes))
	g.notes = make(map[string]*node, len(notes))
	for i := range notes {
		nd := &nodes[i]
		nd.note, nd.slot = notes[i], int32(i)
		g.all[i] = nd
		g.notes[nd.id()] = nd
	}
	g.slots = int32(len(notes))
	var targets []*node
	for _, nd := range g.all {
		targets = targets[:0]
		for i := range nd.note.Links {
			l := &nd.note.Links[i]
			if l.Target != "" {
				if t := g.notes[l.Target]; t != nil {
					if !slices.Contains(targets, t) {
						targets = append(targets, t)
					}
					continue
				}
				l.Target = ""
			}
			g.addUnresolved(l.Key, nd)
		}
		setViewLinks(nd, targets)
		if len(targets) > 0 {
			nd.out = slices.Clone(targets)
			slices.SortFunc(nd.out, compareNodes)
			for _, t := range nd.out {
				t.in = append(t.in, nd) // nd comes in ID order: t.in stays sorted
			}
		}
		nd.normTags = normalizeTags(nd.note.Tags)
		for _, t := range nd.normTags {
			ti := g.tagIndex(t)
			ti.list = append(ti.list, nd)
		}
		g.indexEntity(nd)
	}
	for _, nd := range g.all {
		nd.in = slices.Clip(nd.in)
	}
	g.version++
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// keywordChunk is how many notes buildKeywords reads in one transaction.
const keywordChunk = 512

// buildKeywords adds to the keyword index of a graph loaded from disk the
// notes that had no term vector there, analysing their title and text
// read chunk by chunk, and then closes g.keywordsReady. A note written
// meanwhile (its gen moved) is skipped: its write indexed it already. The
// term vectors it makes reach the disk with the notes' next write.
func (s *Store) buildKeywords(project string, g *graph, nodes []*node) {
	type item struct {
		nd    *node
		gen   uint32
		title string
	}
	for start := 0; start < len(nodes); start += keywordChunk {
		part := nodes[start:min(start+keywordChunk, len(nodes))]
		items := make([]item, 0, len(part))
		g.mu.RLock()
		for _, nd := range part {
			if g.notes[nd.id()] == nd {
				items = append(items, item{nd, nd.gen, nd.note.Title})
			}
		}
		bodies, err := s.bodiesOf(project, part, false, false)
		g.mu.RUnlock()
		if err != nil {
			// The store is closed or the disk fails: searches see what is
			// indexed; the next load tries again.
			return
		}
		analyses := make([]keyword.Analysis, len(items))
		at := 0
		for i, nd := range part {
			if at < len(items) && items[at].nd == nd {
				analyses[at] = keyword.Analyze(items[at].title, bodies[i].content)
				at++
			}
		}
		g.mu.Lock()
		var done []*node
		for i, it := range items {
			if g.notes[it.nd.id()] == it.nd && it.nd.gen == it.gen {
				g.search.keywords.put(it.nd.id(), analyses[i])
				done = append(done, it.nd)
			}
		}
		err = s.persistKeywords(project, g, done)
		g.mu.Unlock()
		if err != nil {
			return // kept in memory; the next load analyses them again
		}
	}
}

// loaded waits for a ready signal of g (see graph.keywordsReady).
func loaded(ctx context.Context, ready <-chan struct{}) error {
	select {
	case <-ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// persistKeywords writes the term vectors of nodes and the terms new to
// the dictionary; the caller holds g.mu for writing.
func (s *Store) persistKeywords(project string, g *graph, nodes []*node) error {
	x := g.search.keywords
	newTerms := len(x.names)
	err := s.kv.Update(func(tx *kv.Tx) error {
		for i := x.persisted; i < newTerms; i++ {
			if err := tx.PutRaw(kwTermsBucket(project), termKey(i), []byte(x.names[i])); err != nil {
				return err
			}
		}
		for _, nd := range nodes {
			vec, length, _ := x.vec(nd.id())
			rec := binary.AppendUvarint(make([]byte, 0, len(vec)+4), uint64(length))
			if err := tx.PutRaw(kwDocsBucket(project), nd.id(), append(rec, vec...)); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		x.persisted = newTerms
	}
	return err
}
