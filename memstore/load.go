package memstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
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
		// Sized by the count a start asked for (CountNotes): grown
		// record by record, the list was 26 MB of a 100k restart's
		// garbage.
		recs := make([]rawRecord, 0, s.countedOf(project, tx.Version()))
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
		return g.build(recs, tx.GetRaw(targetsBucket, project), states, tx.Reread)
	})
	if err != nil {
		return nil, fmt.Errorf("load notes of %s: %w", project, err)
	}
	if g == nil {
		return nil, nil
	}
	states.flush()
	// The keyword dictionary (~0.1 CPU-s at 100k notes) is read when
	// something needs it (ensureTerms), not on a restart's path.
	g.termsOnDisk = true
	g.vectorsReady, g.keywordsReady = make(chan struct{}), make(chan struct{})
	g.searchLoad = func() { go s.loadSearch(project, g) }
	return g, nil
}

// ensureTerms reads the keyword dictionary of a graph loaded from disk
// into its empty keyword index, once: before any write can number a new
// term, and before the index loads its term vectors. The caller holds
// g.mu for writing. A failure leaves the index empty (the next call tries
// again).
func (s *Store) ensureTerms(project string, g *graph) error {
	if !g.termsOnDisk {
		return nil
	}
	x := g.search.keywords
	if err := s.loadTerms(project, x); err != nil {
		clear(x.terms)
		x.names, x.post, x.df, x.persisted = x.names[:0], x.post[:0], x.df[:0], 0
		if !errors.Is(err, errBadRecord) {
			return fmt.Errorf("load keyword terms of %s: %w", project, err)
		}
		// A damaged dictionary: every term vector numbers its terms by it,
		// so both go, and the load analyses every note's text again
		// (buildKeywords: the notes it finds without a term vector).
		// Nothing is lost: the index is made from the notes' text.
		if err := s.dropKeywords(project); err != nil {
			return fmt.Errorf("load keyword terms of %s: %w", project, err)
		}
		s.warnRebuilt(project, "keyword dictionary", 1, "", "every note's text is analysed again; keyword searches find each note once it is", err)
	}
	g.termsOnDisk = false
	return nil
}

// dropKeywords deletes the project's keyword dictionary and term vectors
// from the state file.
func (s *Store) dropKeywords(project string) error {
	return s.updateOutsideNotes(func(tx *kv.Tx) error {
		if err := tx.DeleteBucket(kwTermsBucket(project)); err != nil {
			return err
		}
		return tx.DeleteBucket(kwDocsBucket(project))
	})
}

// loadTerms reads the keyword dictionary into an empty index.
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
// then its keyword dictionary and index, closing the ready signal of
// each. A failure leaves what was loaded (searches see less) and is
// retried by the next load; no caller hears of it, so it is logged
// (warnLoad), before the ready signal, so that whoever waits for it finds
// the warning written.
func (s *Store) loadSearch(project string, g *graph) {
	func() {
		defer close(g.vectorsReady)
		bad, err := s.loadVectors(project, g)
		if err != nil {
			s.warnLoad(project, "vectors", "semantic searches find only the notes whose vectors loaded", err)
		}
		bad.report(s, project, "vectors", vectorsRebuilt)
	}()
	defer close(g.keywordsReady)
	// The dictionary first, on its own: its failure also fails every note
	// write (lockForWrite reads it too), which the warning must say.
	g.mu.Lock()
	err := s.ensureTerms(project, g)
	g.mu.Unlock()
	if err != nil {
		s.warnLoad(project, "keyword dictionary", "keyword searches find nothing stored and note writes fail", err)
		return
	}
	missing, bad, err := s.loadKeywords(project, g)
	bad.report(s, project, "keyword index", "the notes' text is analysed again and their term vectors written anew")
	if err != nil {
		s.warnLoad(project, "keyword index", keywordsPartial, err)
		return
	}
	s.buildKeywords(project, g, missing)
}

// vectorsRebuilt says how damaged vectors are made again: the notes are
// stale (StaleVectors), so a sync's embedding pass embeds them.
const vectorsRebuilt = "the notes' vectors are stale and embedded again by the sync's embedding pass"

// damaged counts the records a load found damaged and left out, to be
// made again from the notes, and names the first.
type damaged struct {
	n     int
	first string
	err   error // the first one's
}

func (d *damaged) add(id string, err error) {
	if d.n == 0 {
		d.first, d.err = id, err
	}
	d.n++
}

// report logs the damage found in a part of the search index, if any
// (see Store.warnRebuilt).
func (d damaged) report(s *Store, project, part, rebuilt string) {
	if d.n > 0 {
		s.warnRebuilt(project, part, d.n, d.first, rebuilt, d.err)
	}
}

// warnRebuilt logs that records of part of a project's search index were
// damaged in the state file and are made again from the notes (rebuilt
// says how): the user loses nothing and has nothing to do, but damage
// that comes back points at the disk.
func (s *Store) warnRebuilt(project, part string, records int, first, rebuilt string, err error) {
	if s.closed.Load() {
		return
	}
	s.logger.Warn("embedded store: damaged search records in the state file were left out and are made again from the notes; nothing is lost",
		"project", project, "part", part, "records", records, "first", first, "rebuilt", rebuilt, "err", err,
		"state_folder", s.dir,
		"hint", "nothing to do; if this warning comes back after a restart, check the disk holding the state folder")
}

// keywordsPartial is what a keyword index loaded in part means to a user.
const keywordsPartial = "keyword searches find only the notes indexed so far"

// warnLoad logs that part of a project's search index could not be loaded
// from the state file (a damaged record, a failing disk), with what that
// means (effect) and the remedy: the vault is the source of truth for
// notes, so a state folder synced again from it is whole. Until then
// searches answer from what loaded, and nothing else would tell the user
// why they find less. A load cut short by Close is not logged: the error
// is the closed file's, not damage.
func (s *Store) warnLoad(project, part, effect string, err error) {
	if s.closed.Load() {
		return
	}
	s.logger.Warn("embedded store: part of the search index could not be loaded from the state file; searches answer from what loaded",
		"project", project, "part", part, "effect", effect, "err", err,
		"state_folder", s.dir,
		"remedy", rebuildStateRemedy)
}

// rebuildStateRemedy is what a user does about damage the store cannot
// repair itself: the vault is the source of truth for notes, so a state
// folder synced again from it is whole.
const rebuildStateRemedy = "stop vaultgraph, delete the state folder and run `vaultgraph sync` (with the same --state-dir, if one is set) " +
	"to rebuild it from the vault: the notes' vectors are embedded again, and the memories and change log kept in it are lost"

// loadKeywords puts the persisted term vectors of a graph's notes into
// its keyword index, a chunk at a time: each read in a transaction of its
// own, then applied under the write lock (never taken inside a
// transaction: a writer holds it while it commits), skipping notes written
// or deleted since the load. A damaged record is left out (bad counts
// them): its note has no term vector then. It returns the notes that have
// none (stored before term vectors were kept, or whose record was
// damaged), which buildKeywords analyses again.
func (s *Store) loadKeywords(project string, g *graph) (missing []*node, bad damaged, err error) {
	const chunkSize = 4096
	errChunk := errors.New("chunk full")
	x := g.search.keywords
	g.mu.Lock()
	if err := s.ensureTerms(project, g); err != nil {
		g.mu.Unlock()
		return nil, bad, err
	}
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
	// A first walk counts each term's postings, a second puts them. The
	// first cannot know which notes the second will skip (written since
	// the load): for such a note the counts are off, which costs room,
	// never postings.
	sizer := x.newPostingsSizer()
	g.mu.Unlock()
	err = s.kv.View(func(tx *kv.Tx) error {
		return tx.ForEachRaw(kwDocsBucket(project), func(_, rec []byte) error {
			if _, n := binary.Uvarint(rec); n > 0 {
				sizer.add(rec[n:])
			}
			return nil
		})
	})
	if err != nil {
		return nil, bad, err
	}
	g.mu.Lock()
	x.reservePostings(sizer)
	g.mu.Unlock()
	var chunk []loadedDoc
	var vecs []byte // the chunk's term vectors, reused by the next chunk
	for from, more := "", true; more; {
		chunk, vecs = chunk[:0], vecs[:0]
		if keywordChunkHook != nil {
			keywordChunkHook()
		}
		err := s.kv.View(func(tx *kv.Tx) error {
			return tx.ForEachFrom(kwDocsBucket(project), from, func(id string, rec []byte) error {
				if len(chunk) == chunkSize {
					from = id
					return errChunk
				}
				length, n := binary.Uvarint(rec)
				if n <= 0 {
					bad.add(id, fmt.Errorf("term vector of %s: %w", id, errBadRecord))
					return nil
				}
				start := len(vecs)
				vecs = append(vecs, rec[n:]...)
				chunk = append(chunk, loadedDoc{id, int32(length), start, len(vecs)})
				return nil
			})
		})
		switch {
		case errors.Is(err, errChunk):
		case err != nil:
			return nil, bad, err
		default:
			more = false
		}
		applyLoaded(g, chunk, vecs, &bad)
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	for _, nd := range g.all {
		if _, ok := x.slots[nd.ID]; !ok && nd.gen == 0 {
			missing = append(missing, nd)
		}
	}
	return missing, bad, nil
}

// keywordChunkHook, set by tests only, runs before loadKeywords reads each
// chunk, with no lock held.
var keywordChunkHook func()

// loadedDoc is a term vector loadKeywords read: its note, its length and
// where the vector lies in the chunk's buffer.
type loadedDoc struct {
	id         string
	length     int32
	start, end int
}

// applyLoaded puts a chunk of term vectors read from kwdocs into g's
// keyword index, skipping notes written or deleted since the load, and
// leaving out (counted in bad) a vector that numbers a term the
// dictionary does not have. The term numbers are checked here, under the
// lock, against the dictionary as it is now: a write committed while the
// chunk was read can have put a term vector with terms numbered after the
// load began (a record it skips, its note written since), which a bound
// taken before the read would call damaged.
func applyLoaded(g *graph, chunk []loadedDoc, vecs []byte, bad *damaged) {
	g.mu.Lock()
	defer g.mu.Unlock()
	x := g.search.keywords
	for _, d := range chunk {
		nd := g.notes[d.id]
		if nd == nil || nd.gen != 0 { // deleted, or written since the load
			continue
		}
		vec := vecs[d.start:d.end]
		valid := true
		eachTerm(vec, func(term, _ int32) { valid = valid && int(term) < len(x.names) })
		if !valid {
			bad.add(d.id, fmt.Errorf("term vector of %s: %w", d.id, errBadRecord))
			continue
		}
		x.putLoaded(nd.ID, d.length, vec) // the node's ID string, not the key's copy
	}
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
// before its note is decoded, and each record is then decoded once.
//
// A link's target is the node at the position the table of targets
// (targets.go) gives it where the table is proven to fit, else found by
// its ID; either way the pass reads nothing of the target node (its ID
// comes from a list of the IDs, its position is its slot), and each
// node's incoming list is filled after the pass, all in one block, from
// the out-lists: the pass touched every target node at random (a cache
// miss each, ~700k at 100k notes) for nothing else. states, when not
// nil, is given each note's state as its record is read. reread is told
// the bytes of each record decoded (their pages are touched again:
// kv.Tx.Reread).
//
// Its steps: place every node with its ID and title (placeNodes), decode
// each record and link its node (builder.note), then fill every incoming
// list in one block (fillIncoming). A node's kind (a note, an attachment,
// a canvas) is its ID's (core.KindOf): every step takes them alike.
func (g *graph) build(recs []rawRecord, table []byte, states *stateSink, reread func(int)) error {
	if !slices.IsSortedFunc(recs, func(a, b rawRecord) int { return bytes.Compare(a.id, b.id) }) {
		slices.SortFunc(recs, func(a, b rawRecord) int { return bytes.Compare(a.id, b.id) })
	}
	b := &builder{g: g, states: states, reread: reread, a: newArena(0)}
	idHash := b.placeNodes(recs)
	b.hints = newTargetHints(table, len(recs), idHash)
	b.edges = make([]int32, 0, len(recs))
	b.outEnd = make([]int32, len(recs))
	b.in = make([]int32, len(recs))
	for i, nd := range g.all {
		if err := b.note(i, nd, recs[i].rec); err != nil {
			return err
		}
	}
	b.fillIncoming()
	g.version++
	if loadHook != nil {
		loadHook(b.hinted)
	}
	return nil
}

// builder is one graph.build's state: the nodes, the block of their IDs
// and titles, the table of targets, and the lists the pass fills.
type builder struct {
	g      *graph
	states *stateSink
	reread func(int)
	a      *arena
	nodes  []node   // one allocation for every node
	names  []byte   // every ID, each with its title right after it
	idOff  []uint32 // where each node's ID starts in names
	hints  targetHints
	hinted int // link targets taken from the table

	// Pools the pass cuts the nodes' lists from: many notes' links,
	// targets and out-lists per allocation.
	all                 []link
	targetPool, outPool []*node
	first               []int32 // a note's distinct targets' positions, in first-link order
	edges               []int32 // every note's out-list as positions, by note
	outEnd              []int32 // note i's are edges[outEnd[i-1]:outEnd[i]]
	in                  []int32 // incoming edges by position
}

// idAt is the ID of the node at position p, n bytes long.
func (b *builder) idAt(p, n int) string { return unsafe.String(&b.names[b.idOff[p]], n) }

// placeNodes makes every node with its slot, ID and title, in ID order,
// and returns the hash of the IDs (the table of targets is checked
// against it). Every ID, each with its title right after it (a view of a
// note lists the ID and title of each of its links' targets, viewLinks:
// side by side they are one cache line to fetch instead of two), is in
// one block, so that the pass makes a target's ID from its position
// (idAt) without reading its node: the offsets are a small array, the
// nodes are not.
func (b *builder) placeNodes(recs []rawRecord) uint64 {
	g := b.g
	b.nodes = make([]node, len(recs))
	g.all = make(nodeList, len(recs))
	g.notes = make(map[string]*node, len(recs))
	size := 0
	for _, r := range recs {
		size += len(r.id) + len(recordTitle(r.rec))
	}
	b.names = make([]byte, 0, size)
	b.idOff = make([]uint32, len(recs))
	idHash := newIDHasher()
	for i, r := range recs {
		nd := &b.nodes[i]
		nd.slot = int32(i)
		b.idOff[i] = uint32(len(b.names))
		b.names = append(b.names, r.id...)
		title := recordTitle(r.rec)
		b.names = append(b.names, title...)
		b.reread(len(title))
		nd.ID = b.idAt(i, len(r.id))
		if len(title) > 0 {
			nd.Title = unsafe.String(&b.names[int(b.idOff[i])+len(r.id)], len(title))
		}
		g.all[i] = nd
		g.notes[nd.ID] = nd
		idHash.add(nd.ID)
	}
	g.slots = int32(len(recs))
	g.slotNodes = slices.Clone(g.all) // slot i is the i-th note
	return idHash.sum()
}

// note decodes the record rec of the node nd at position i: its hot
// fields, its links (linkNote), its out-list (outList), its tags and
// entity, and its state for the sink.
func (b *builder) note(i int, nd *node, rec []byte) error {
	g := b.g
	r, size, mtime, err := decodeHot(b.a, nd, rec)
	if err != nil {
		return err
	}
	b.reread(len(rec))
	c := r.count()
	if c > 0 {
		if len(b.all) < c {
			b.all = make([]link, max(c, 4096)) // links of many notes per allocation
		}
		nd.links, b.all = b.all[:c:c], b.all[c:]
	}
	st := b.states.start(nd, size, mtime, c)
	b.hints.note(c, r)
	b.linkNote(nd, &r, st)
	if r.err != nil {
		return fmt.Errorf("note %s: links: %w", nd.ID, r.err)
	}
	b.outList(i, nd)
	for _, t := range nd.normTags() {
		ti := g.tagIndex(t)
		ti.list = append(ti.list, nd)
	}
	g.indexEntity(nd)
	b.states.done()
	return nil
}

// linkNote decodes nd's links from r: a link's target is the node at the
// position the table of targets gives it where the table is proven to
// fit, else found by its ID; either way nothing of the target node is
// read (its ID comes from the block of IDs, its position is its slot). A
// target not there yet is pending, any other link unresolved. nd's
// distinct targets' positions are left in b.first.
func (b *builder) linkNote(nd *node, r *recordReader, st *core.NoteState) {
	g := b.g
	b.first = b.first[:0]
	for j := range nd.links {
		raw := r.bytes()
		key := r.bytes()
		target := r.bytes()
		r.bytes() // alias
		r.bytes() // heading
		embed := r.byte() == 1
		l := &nd.links[j]
		p := -1
		if hint := b.hints.position(); len(target) > 0 {
			if hint >= 0 && hint < len(b.nodes) {
				p = hint // proven to be the note target names (targets.go)
				b.hinted++
			} else if t := g.notes[unsafeString(target)]; t != nil {
				p = int(t.slot)
			} else {
				g.pending.add(string(target), nd, j) // resolves when it is written
			}
		}
		targetID := ""
		if p >= 0 {
			// target's bytes are the ID's: the key is found in them
			// (in cache) and made a window into the ID.
			l.target, targetID = &b.nodes[p], b.idAt(p, len(target))
		}
		if from, ok := keyWindow(unsafeString(key), unsafeString(target), p >= 0); ok {
			l.key = targetID[from : from+len(key)]
		} else {
			l.key = b.a.str(key)
		}
		if st != nil {
			b.states.link(st, j, raw, l.key, targetID, embed)
		}
		if p >= 0 {
			if !slices.Contains(b.first, int32(p)) {
				b.first = append(b.first, int32(p))
			}
			continue
		}
		g.addUnresolved(l.key, nd)
	}
}

// outList sets the targets and the out-list of the node at position i
// from b.first, and counts its incoming edges. Positions are slots,
// handed out in ID order: sorting them sorts the out-list by ID without
// reading an ID.
func (b *builder) outList(i int, nd *node) {
	if n := len(b.first); n > 0 {
		if len(b.targetPool) < n {
			b.targetPool = make([]*node, max(n, 4096)) // many notes' targets per allocation
		}
		if len(b.outPool) < n {
			b.outPool = make([]*node, max(n, 4096))
		}
		nd.targets, b.targetPool = b.targetPool[:n:n], b.targetPool[n:]
		nd.out, b.outPool = b.outPool[:n:n], b.outPool[n:]
		for k, p := range b.first {
			nd.targets[k] = &b.nodes[p]
		}
		from := len(b.edges)
		b.edges = append(b.edges, b.first...)
		slices.Sort(b.edges[from:])
		for k, p := range b.edges[from:] {
			nd.out[k] = &b.nodes[p]
			b.in[p]++
		}
	}
	b.outEnd[i] = int32(len(b.edges))
}

// fillIncoming makes the incoming lists, windows of one block, from the
// out-lists: the pass touched every target node at random (a cache miss
// each, ~700k at 100k notes) for nothing else. in[p] becomes the end of
// p's window as the notes linking to it are put in, in ID order (so each
// list is sorted).
func (b *builder) fillIncoming() {
	nodes, in := b.nodes, b.in
	block := make(nodeList, len(b.edges))
	end := 0
	for p, n := range in {
		in[p] = int32(end)
		end += int(n)
	}
	from := int32(0)
	for src, to := range b.outEnd {
		for _, p := range b.edges[from:to] {
			block[in[p]] = &nodes[src]
			in[p]++
		}
		from = to
	}
	start := int32(0)
	for p := range nodes {
		if end := in[p]; end > start {
			nodes[p].in = block[start:end:end]
			start = end
		}
	}
}

// loadHook, when set (tests), is told after each graph build how many
// link targets the build took from the table of targets (targets.go).
var loadHook func(hinted int)

// keyWindow is windowKey for a link to the note with ID targetID (when
// resolved): where key starts in the ID.
func keyWindow(key, targetID string, resolved bool) (from int, ok bool) {
	if !resolved {
		return 0, key == ""
	}
	stem := strings.TrimSuffix(targetID, ".md")
	if !strings.HasSuffix(stem, key) {
		return 0, false
	}
	return len(stem) - len(key), true
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
			// The store is closed (not logged), or a record is damaged or
			// the disk fails: searches see what is indexed; the next load
			// tries again.
			s.warnLoad(project, "keyword index", keywordsPartial, err)
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
			// This chunk is kept in memory, the rest is not indexed; the
			// next load analyses them all again.
			s.warnLoad(project, "keyword index", keywordsPartial, err)
			return
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
