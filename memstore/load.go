package memstore

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
	"unsafe"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding/keyword"
	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
)

// loadGraph reads a project's notes from disk into a new graph (nil when
// the project holds none): its note records, then the graph built from
// them in one pass. What a start does not need before it answers (the
// vectors, then the keyword index, which needs every note's text) is
// loaded in the background once something asks for the graph other than
// a restore's NoteStates (graph.startSearch): searches wait for it. When
// states is not nil, the build hands it the state of every note as it
// decodes its record (NoteStates of a graph not loaded yet: one pass over
// the records instead of two). The caller holds s.mu.
func (s *Store) loadGraph(project string, states *stateSink) (*graph, error) {
	var g *graph
	// The graph is built inside the read transaction: the records are
	// read where they lie in the file (valid for the transaction only),
	// and only what memory keeps is copied out, into shared blocks.
	err := s.kv.View(func(tx *kv.Tx) error {
		var recs []rawRecord
		err := tx.ForEachRaw(notesBucket(project), func(id, rec []byte) error {
			recs = append(recs, rawRecord{id, rec})
			return nil
		})
		if err != nil || len(recs) == 0 {
			return err
		}
		g = newGraph()
		if states != nil {
			states.version = tx.Version()
		}
		return g.build(recs, states, tx.Reread)
	})
	if err != nil {
		return nil, fmt.Errorf("load notes of %s: %w", project, err)
	}
	if g == nil {
		return nil, nil
	}
	states.flush() // the caller takes the last states while the terms load
	if err := s.loadTerms(project, g.search.keywords); err != nil {
		return nil, fmt.Errorf("load keyword terms of %s: %w", project, err)
	}
	g.vectorsReady, g.keywordsReady = make(chan struct{}), make(chan struct{})
	g.searchLoad = func() { go s.loadSearch(project, g) }
	return g, nil
}

// loadTerms reads the keyword dictionary into an empty index: before any
// write can number a new term.
func (s *Store) loadTerms(project string, x *kwIndex) error {
	err := s.kv.View(func(tx *kv.Tx) error {
		// The last term's number is the dictionary's size: room for every
		// term at once (growing the map and slices term by term was ~40 MB
		// of garbage at 100k notes). Only a reservation: the walk below
		// checks every key.
		_ = tx.ForEachBefore(kwTermsBucket(project), "", func(key string, _ []byte) error {
			if len(key) == 4 {
				x.reserveTerms(min(int(binary.BigEndian.Uint32([]byte(key)))+1, maxTermsReserved))
			}
			return kv.ErrStop
		})
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
		_ = s.loadVectors(project, g) // a failure: searches see what is loaded
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
		id         string
		length     int32
		start, end int // the term vector in vecs
	}
	const chunkSize = 4096
	errChunk := errors.New("chunk full")
	x := g.search.keywords
	g.mu.Lock()
	terms := len(x.names)
	// The index keeps the loaded vectors' postings, not the vectors: they
	// stay in kwdocs, read again only to replace or delete a note.
	x.readVec = s.termVecReader(project)
	// One document a note: room for all at once, not grown note by note
	// (~30 MB of garbage at 100k notes, made under the soft memory limit
	// that follows the live heap after a start, where each collection
	// marks the whole graph).
	x.docs = slices.Grow(x.docs, len(g.all))
	if len(x.slots) == 0 {
		x.slots = make(map[string]int32, len(g.all))
	}
	g.mu.Unlock()
	var chunk []doc
	var vecs []byte // the chunk's term vectors, reused by the next chunk
	for from, more := "", true; more; {
		chunk, vecs = chunk[:0], vecs[:0]
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
				start := len(vecs)
				vecs = append(vecs, rec[n:]...)
				vec := vecs[start:]
				valid := true
				eachTerm(vec, func(term, _ int32) { valid = valid && int(term) < terms })
				if !valid {
					return fmt.Errorf("term vector of %s: %w", id, errBadRecord)
				}
				chunk = append(chunk, doc{id, int32(length), start, len(vecs)})
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
				x.putLoaded(nd.ID, d.length, vecs[d.start:d.end]) // the node's ID string, not the key's copy
			}
		}
		g.mu.Unlock()
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	for _, nd := range g.all {
		if _, ok := x.slots[nd.ID]; !ok && nd.gen == 0 {
			missing = append(missing, nd)
		}
	}
	return missing, nil
}

// rawRecord is a note record as the file holds it: ID and record bytes,
// valid during their transaction only.
type rawRecord struct{ id, rec []byte }

// build fills an empty graph with notes as read from disk (records in ID
// order, as the bucket iterates): the targets of their links are what the
// store resolved when it wrote them (a target that is not there, which a
// cut-off staged write can leave, is unresolved). It does in one pass what
// upsert does by the batch: every list comes out sorted because the notes
// are visited in ID order. The nodes' strings are copied into shared
// arena blocks: a few hundred allocations for 100k notes. Every node gets
// its ID (and, beside it, its title) first, so a link's target is known
// before its note is decoded, and each record is then decoded once;
// states, when not nil, is given each
// note's state as its record is read. reread is told the bytes of each
// record decoded (their pages are touched again: kv.Tx.Reread).
func (g *graph) build(recs []rawRecord, states *stateSink, reread func(int)) error {
	if !slices.IsSortedFunc(recs, func(a, b rawRecord) int { return bytes.Compare(a.id, b.id) }) {
		slices.SortFunc(recs, func(a, b rawRecord) int { return bytes.Compare(a.id, b.id) })
	}
	nodes := make([]node, len(recs)) // one allocation for every node
	g.all = make(nodeList, len(recs))
	g.notes = make(map[string]*node, len(recs))
	a := newArena(0)
	for i, r := range recs {
		nd := &nodes[i]
		nd.slot = int32(i)
		// The title right after the ID: a view of a note lists the ID and
		// title of each of its links' targets (viewLinks), and side by side
		// they are one cache line to fetch instead of two.
		nd.ID = a.str(r.id)
		title := recordTitle(r.rec)
		nd.Title = a.str(title)
		reread(len(title))
		g.all[i] = nd
		g.notes[nd.ID] = nd
	}
	g.slots = int32(len(recs))
	g.slotNodes = slices.Clone(g.all) // slot i is the i-th note
	var targets, pool []*node
	var all []link
	for i, nd := range g.all {
		r, size, mtime, err := decodeHot(a, nd, recs[i].rec)
		if err != nil {
			return err
		}
		reread(len(recs[i].rec))
		c := r.count()
		if c > 0 {
			if len(all) < c {
				all = make([]link, max(c, 4096)) // links of many notes per allocation
			}
			nd.links, all = all[:c:c], all[c:]
		}
		st := states.start(nd, size, mtime, c)
		targets = targets[:0]
		for j := range nd.links {
			raw := r.bytes()
			key := r.bytes()
			target := r.bytes()
			r.bytes() // alias
			r.bytes() // heading
			embed := r.byte() == 1
			l := &nd.links[j]
			if len(target) > 0 {
				if l.target = g.notes[string(target)]; l.target == nil {
					g.pending.add(string(target), nd, j) // resolves when it is written
				}
			}
			if k, ok := windowKey(unsafeString(key), l.target); ok {
				l.key = k
			} else {
				l.key = a.str(key)
			}
			if st != nil {
				states.link(st, j, raw, l, embed)
			}
			if t := l.target; t != nil {
				if !slices.Contains(targets, t) {
					targets = append(targets, t)
				}
				continue
			}
			g.addUnresolved(l.key, nd)
		}
		if r.err != nil {
			return fmt.Errorf("note %s: links: %w", nd.ID, r.err)
		}
		if len(targets) > 0 {
			if len(pool) < len(targets) {
				pool = make([]*node, max(len(targets), 4096)) // many notes' targets per allocation
			}
			nd.targets, pool = pool[:len(targets):len(targets)], pool[len(targets):]
			copy(nd.targets, targets)
			nd.out = slices.Clone(targets)
			// Slots are handed out in ID order here, so comparing them
			// sorts by ID without reading the IDs (each from another
			// node: a cache miss per comparison).
			slices.SortFunc(nd.out, func(a, b *node) int { return cmp.Compare(a.slot, b.slot) })
			for _, t := range nd.out {
				t.in = append(t.in, nd) // nd comes in ID order: t.in stays sorted
			}
		}
		for _, t := range nd.normTags() {
			ti := g.tagIndex(t)
			ti.list = append(ti.list, nd)
		}
		g.indexEntity(nd)
		states.done()
	}
	for _, nd := range g.all {
		nd.in = slices.Clip(nd.in)
	}
	g.version++
	return nil
}

// decodeHot sets on nd (its ID and title set) what memory keeps of its note record
// rec (see node), its strings copied into a, and returns a reader at the
// record's links, with the note's size and mtime (zero when it has none).
func decodeHot(a *arena, nd *node, rec []byte) (links recordReader, size int64, mtime time.Time, err error) {
	r := recordReader{b: rec}
	if v := r.byte(); v != recordVersion {
		return r, 0, mtime, fmt.Errorf("note %s: record version %d: %w", nd.ID, v, errBadRecord)
	}
	r.bytes() // the title, set by build beside the ID
	nd.Path = a.str(r.bytes())
	nd.Hash = a.str(r.bytes())
	size = r.varint()
	if r.byte() == 1 {
		mtime = time.Unix(0, r.varint())
	}
	if c := r.count(); c > 0 {
		nd.Tags = make([]string, c)
		for i := range nd.Tags {
			nd.Tags[i] = a.str(r.bytes())
		}
	}
	links = r // the links, read by build
	for range r.count() {
		r.bytes()
		r.bytes()
		r.bytes()
		r.bytes()
		r.bytes()
		r.byte()
	}
	if entity := r.bytes(); len(entity) > 0 && r.err == nil {
		nd.Entity = new(core.NoteEntity)
		if err := json.Unmarshal(entity, nd.Entity); err != nil {
			return r, 0, mtime, fmt.Errorf("note %s: entity: %w", nd.ID, err)
		}
	}
	if r.err != nil {
		return r, 0, mtime, fmt.Errorf("note %s: %w", nd.ID, r.err)
	}
	return links, size, mtime, nil
}

// recordTitle is the title of a note record; nil for a record decodeHot
// refuses (it says why).
func recordTitle(rec []byte) []byte {
	r := recordReader{b: rec}
	if r.byte() != recordVersion {
		return nil
	}
	return r.bytes()
}

// unsafeString is b as a string without a copy, for a lookup or a
// comparison while b lives.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
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
			if g.notes[nd.ID] == nd {
				items = append(items, item{nd, nd.gen, nd.Title})
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
			if g.notes[it.nd.ID] == it.nd && it.nd.gen == it.gen {
				g.search.keywords.put(it.nd.ID, analyses[i])
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
	err := s.updateOutsideNotes(func(tx *kv.Tx) error {
		for i := x.persisted; i < newTerms; i++ {
			if err := tx.PutRaw(kwTermsBucket(project), termKey(i), []byte(x.names[i])); err != nil {
				return err
			}
		}
		for _, nd := range nodes {
			vec, length, _ := x.vec(nd.ID)
			rec := binary.AppendUvarint(make([]byte, 0, len(vec)+4), uint64(length))
			if err := tx.PutRaw(kwDocsBucket(project), nd.ID, append(rec, vec...)); err != nil {
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
