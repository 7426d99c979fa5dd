package memstore

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"unsafe"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding/keyword"
	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
)

// kwIndex is the embedded store's BM25 index over notes' titles and text:
// keyword.Index's scores, in a third of the memory, and kept on disk.
//
// Terms are numbered once and for all (the dictionary). Each note is a
// document slot holding its term vector: its distinct term numbers in
// ascending order with their frequencies, varint-coded, about 2 bytes a
// term. Each term's postings are the slots holding it, ascending, as
// varint (slot gap, frequency) pairs, about 2.5 bytes a posting where
// keyword.Index spends 12 (a slot and a frequency of 4 bytes each, plus 4
// for the document's own list of terms). Slots only grow, so a new
// posting is appended; a replaced or deleted note leaves a dead slot that
// searches skip, until dead slots outnumber live ones and the postings are
// rewritten without them. At 100k notes: 200 MB → ~70 MB.
//
// The term vectors and the dictionary are persisted with the notes
// (persist.go), so a restart rebuilds the postings from them instead of
// analysing every note's text again; the vectors a restart loads stay on
// disk (putLoaded), read back only when their note is replaced or
// deleted, for the document frequencies of its terms. Not safe for
// concurrent use: the graph's lock guards it.
type kwIndex struct {
	terms     map[string]int32 // term -> number
	names     []string         // by number
	persisted int              // names[:persisted] are on disk
	post      []postings       // by term number
	df        []int32          // by term number: live documents holding it
	slots     map[string]int32 // note ID -> its live slot
	docs      []kwDoc          // by slot
	live      int
	dead      int
	total     int // sum of live documents' lengths
	// readVec reads a note's term vector from the store (its kwdocs
	// record) for a document loaded without it (putLoaded); nil when
	// every document holds its vector.
	readVec func(id string) ([]byte, error)
	scratch sync.Pool
	pairs   []termCount // putTerms's, reused
	// deferred: the index numbers terms and hands written notes' term
	// vectors to the store (held until committed), but keeps no postings,
	// slots or frequencies: a project written by a process that exits
	// after its sync (Store.DeferKeywordPostings), where nothing searches
	// and the postings were ~40 MB of a 100k first sync's live heap. The
	// first keyword search builds them from the stored vectors, as a
	// restart does (Store.postDeferred).
	deferred bool
	held     map[string]heldVec // deferred: written, not yet committed
}

// heldVec is a deferred index's term vector of a note not committed yet.
type heldVec struct {
	vec    []byte
	length int32
}

// postings is one term's posting list.
type postings struct {
	data []byte
	last int32 // the last slot appended
}

// kwDoc is one slot: a live note, or a dead one (id "").
type kwDoc struct {
	id     string
	length int32
	vec    []byte // term vector: varint (term number gap, frequency) pairs
	// onDisk: vec is not held; the store's kwdocs record is it. A project
	// loaded from disk keeps its term vectors there (~27 MB at 100k notes):
	// only replacing or deleting the note reads it again (remove).
	onDisk bool
}

func newKwIndex() *kwIndex {
	return &kwIndex{terms: map[string]int32{}, slots: map[string]int32{}}
}

// reserveTerms makes room for n terms in an empty index.
func (x *kwIndex) reserveTerms(n int) {
	if len(x.names) > 0 || n <= 0 {
		return
	}
	x.terms = make(map[string]int32, n)
	x.names = make([]string, 0, n)
	x.post = make([]postings, 0, n)
	x.df = make([]int32, 0, n)
}

// maxTermsReserved bounds what a dictionary's last key can make a load
// reserve, so that a damaged key cannot make it allocate gigabytes (at
// most ~90 MB, garbage once the load finds the damage); a 100k-note vault
// has ~155k terms, and a larger dictionary just grows past it.
const maxTermsReserved = 1 << 20

// term returns the number of term, numbering it when new.
func (x *kwIndex) term(t string) int32 {
	if n, ok := x.terms[t]; ok {
		return n
	}
	n := int32(len(x.names))
	t = string([]byte(t)) // a copy: t may be a window into a note's text
	x.terms[t] = n
	x.names = append(x.names, t)
	x.post = append(x.post, postings{last: -1})
	x.df = append(x.df, 0)
	return n
}

// put adds or replaces the note id with its analysed text.
func (x *kwIndex) put(id string, a keyword.Analysis) {
	var terms []string
	var counts []int32
	a.Each(func(t string, n int) {
		terms = append(terms, t)
		counts = append(counts, int32(n))
	})
	x.putTerms(id, terms, counts, int32(a.Len()))
}

// putTerms adds or replaces the note id with its distinct terms, counts[i]
// being how often terms[i] occurs, and its length (see kwTerms).
func (x *kwIndex) putTerms(id string, terms []string, counts []int32, length int32) {
	pairs := x.pairs[:0]
	for i, t := range terms {
		pairs = append(pairs, termCount{x.term(t), counts[i]})
	}
	slices.SortFunc(pairs, func(a, b termCount) int { return int(a.term - b.term) })
	size := 0 // the vector's exact size: one allocation, never grown
	prev := int32(0)
	for _, p := range pairs {
		size += uvarintLen(uint64(p.term-prev)) + uvarintLen(uint64(p.n))
		prev = p.term
	}
	vec := make([]byte, 0, size)
	prev = 0
	for _, p := range pairs {
		vec = binary.AppendUvarint(vec, uint64(p.term-prev))
		vec = binary.AppendUvarint(vec, uint64(p.n))
		prev = p.term
	}
	x.pairs = pairs
	x.putVec(id, length, vec)
}

// termCount is a term number and a frequency.
type termCount struct{ term, n int32 }

// uvarintLen is the length of v as a uvarint.
func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// putVec adds or replaces the note id with a term vector.
func (x *kwIndex) putVec(id string, length int32, vec []byte) {
	if x.deferred {
		if x.held == nil {
			x.held = map[string]heldVec{}
		}
		x.held[id] = heldVec{vec, length}
		return
	}
	x.putDoc(kwDoc{id: id, length: length, vec: vec}, vec)
}

// putLoaded is putVec for a term vector just read from the store's kwdocs
// record of id, which stays there: the index keeps its postings, not the
// vector (vec may be reused once putLoaded returns). x.readVec must be set.
func (x *kwIndex) putLoaded(id string, length int32, vec []byte) {
	x.putDoc(kwDoc{id: id, length: length, onDisk: true}, vec)
}

// putDoc adds or replaces d.id with d, vec being its term vector.
func (x *kwIndex) putDoc(d kwDoc, vec []byte) {
	id, length := d.id, d.length
	x.remove(id)
	slot := int32(len(x.docs))
	x.docs = append(x.docs, d)
	x.slots[id] = slot
	x.live++
	x.total += int(length)
	eachTerm(vec, func(term, tf int32) {
		x.post[term].add(slot, tf)
		x.df[term]++
	})
}

// postingsSizer counts, for term vectors to be put in order from the
// index's next slot, the bytes each term's postings will take, so that a
// load can give every posting list its room in one block
// (reservePostings) instead of growing ~155k lists by doubling: at 100k
// notes that growth was ~70 MB of garbage made right after a start, where
// the soft memory limit that follows the live heap made it cost a
// collection (a mark of the whole graph) every few MB.
type postingsSizer struct {
	size, last []int32 // by term number
	slot       int32
}

func (x *kwIndex) newPostingsSizer() *postingsSizer {
	p := &postingsSizer{size: make([]int32, len(x.post)), last: make([]int32, len(x.post)), slot: int32(len(x.docs))}
	for t := range x.post {
		p.last[t] = x.post[t].last
	}
	return p
}

// add counts the next slot's term vector.
func (p *postingsSizer) add(vec []byte) {
	eachTerm(vec, func(term, tf int32) {
		if term < 0 || int(term) >= len(p.size) {
			return // damaged: the load itself reports it
		}
		p.size[term] += int32(uvarintLen(uint64(p.slot-p.last[term])) + uvarintLen(uint64(tf)))
		p.last[term] = p.slot
	})
	p.slot++
}

// reservePostings gives each empty posting list the room p counted, as
// a window of one block with no room beyond it: a list that outgrows its
// window (a note skipped or written meanwhile, a later write) is moved out
// by append, as any list. Only room: what is appended is unchanged.
func (x *kwIndex) reservePostings(p *postingsSizer) {
	total := 0
	for t, n := range p.size {
		if n > 0 && len(x.post[t].data) == 0 {
			total += int(n)
		}
	}
	block := make([]byte, total)
	off := 0
	for t, n := range p.size {
		if n > 0 && len(x.post[t].data) == 0 {
			x.post[t].data = block[off : off : off+int(n)]
			off += int(n)
		}
	}
}

func (p *postings) add(slot, tf int32) {
	if p.data == nil {
		// Most terms of a vault are held by one or two notes (a number in
		// a title): room for a few postings at first, not append's eight.
		p.data = make([]byte, 0, 4)
	}
	p.data = binary.AppendUvarint(p.data, uint64(slot-p.last))
	p.data = binary.AppendUvarint(p.data, uint64(tf))
	p.last = slot
}

// eachTerm calls fn with every (term number, frequency) of a term vector.
func eachTerm(vec []byte, fn func(term, tf int32)) {
	term := int32(0)
	for len(vec) > 0 {
		gap, n := binary.Uvarint(vec)
		tf, m := binary.Uvarint(vec[n:])
		if n <= 0 || m <= 0 {
			return // damaged: what was read stands
		}
		vec = vec[n+m:]
		term += int32(gap)
		fn(term, int32(tf))
	}
}

// vec returns the term vector and length of the live note id, held in
// memory: ok is false for a note not indexed, or whose vector is only in
// the store (putLoaded), which then needs no writing.
func (x *kwIndex) vec(id string) (vec []byte, length int32, ok bool) {
	if x.deferred {
		h, ok := x.held[id]
		return h.vec, h.length, ok
	}
	slot, ok := x.slots[id]
	if !ok || x.docs[slot].onDisk {
		return nil, 0, false
	}
	d := &x.docs[slot]
	return d.vec, d.length, true
}

// stored tells the index that the live note id's term vector is now in
// the store's kwdocs record, exactly as held: memory lets it go, as for a
// vector loaded from disk (putLoaded), and remove reads it back. A first
// sync kept every written note's vector (~30 MB at 100k notes) for as
// long as the process ran, though only a replacement or a deletion of that
// note reads it again. x.readVec must be set.
func (x *kwIndex) stored(id string) {
	if x.deferred {
		delete(x.held, id) // the postings are built from the store's record
		return
	}
	if slot, ok := x.slots[id]; ok {
		d := &x.docs[slot]
		d.vec, d.onDisk = nil, true
	}
}

// remove drops the note id; unknown ids are ignored.
func (x *kwIndex) remove(id string) {
	if x.deferred {
		delete(x.held, id) // nothing posted
		return
	}
	slot, ok := x.slots[id]
	if !ok {
		return
	}
	d := &x.docs[slot]
	vec, exact := d.vec, true
	if d.onDisk {
		vec, exact = x.storedVec(id)
	}
	if exact {
		eachTerm(vec, func(term, _ int32) { x.df[term]-- })
	}
	x.total -= int(d.length)
	*d = kwDoc{}
	delete(x.slots, id)
	x.live--
	x.dead++
	if !exact {
		x.recountDF()
	}
	if x.dead > 1024 && x.dead > x.live {
		x.compact()
	}
}

// storedVec reads id's term vector from the store; exact is false when it
// cannot (a read error, a missing or damaged record), and the caller then
// counts every term's documents again instead of trusting it.
func (x *kwIndex) storedVec(id string) (vec []byte, exact bool) {
	if x.readVec == nil {
		return nil, false
	}
	vec, err := x.readVec(id)
	if err != nil || vec == nil {
		return nil, false
	}
	exact = true
	eachTerm(vec, func(term, _ int32) { exact = exact && int(term) < len(x.df) })
	return vec, exact
}

// recountDF sets every term's document frequency from its postings, live
// slots only: what remove does when it cannot read a removed note's term
// vector (a pass over every posting, tens of milliseconds at 100k notes).
func (x *kwIndex) recountDF() {
	for term := range x.post {
		n := int32(0)
		eachPosting(x.post[term].data, func(slot, _ int32) {
			if x.docs[slot].id != "" {
				n++
			}
		})
		x.df[term] = n
	}
}

// eachPosting calls fn with every (slot, frequency) of a posting list.
func eachPosting(data []byte, fn func(slot, tf int32)) {
	slot := int32(-1)
	for len(data) > 0 {
		gap, k := binary.Uvarint(data)
		tf, m := binary.Uvarint(data[k:])
		if k <= 0 || m <= 0 {
			return
		}
		data = data[k+m:]
		slot += int32(gap)
		fn(slot, int32(tf))
	}
}

// compact renumbers the live slots and rewrites every posting list
// without the dead ones (from the postings themselves: a document loaded
// from disk holds no term vector). Renumbering keeps the slots' order, so
// each list comes out as building it from the term vectors would.
func (x *kwIndex) compact() {
	renumbered := make([]int32, len(x.docs)) // old slot -> new, -1 for a dead one
	docs := make([]kwDoc, 0, x.live)
	for i, d := range x.docs {
		renumbered[i] = -1
		if d.id != "" {
			renumbered[i] = int32(len(docs))
			x.slots[d.id] = int32(len(docs))
			docs = append(docs, d)
		}
	}
	for term, old := range x.post {
		p := postings{last: -1}
		eachPosting(old.data, func(slot, tf int32) {
			if s := renumbered[slot]; s >= 0 {
				p.add(s, tf)
			}
		})
		x.post[term] = p
	}
	x.docs = docs
	x.dead = 0
}

// search ranks the live notes for query exactly as keyword.Index.Search
// does: the same terms, sums in the same order, the same normalised
// scores and order.
func (x *kwIndex) search(query string, limit int) []core.ScoredID {
	terms := keyword.QueryTerms(query)
	if x.live == 0 || len(terms) == 0 || limit <= 0 {
		return nil
	}
	n := float64(x.live)
	avg := float64(x.total) / n
	sc, _ := x.scratch.Get().(*kwScratch)
	if sc == nil {
		sc = &kwScratch{}
	}
	defer x.scratch.Put(sc)
	if len(sc.scores) < len(x.docs) {
		sc.scores = make([]float64, len(x.docs)+len(x.docs)/4)
	}
	var bound float64
	for _, t := range terms {
		tn, ok := x.terms[t]
		df := 0.0
		if ok {
			df = float64(x.df[tn])
		}
		idf := keyword.IDF(n, df)
		bound += idf
		if !ok {
			continue
		}
		data, slot := x.post[tn].data, int32(-1)
		for len(data) > 0 {
			gap, k := binary.Uvarint(data)
			tf, m := binary.Uvarint(data[k:])
			data = data[k+m:]
			slot += int32(gap)
			d := &x.docs[slot]
			if d.id == "" {
				continue
			}
			if sc.scores[slot] == 0 {
				sc.touched = append(sc.touched, slot)
			}
			sc.scores[slot] += keyword.BM25(idf, int32(tf), d.length, avg)
		}
	}
	// A heap of the best limit hits, its worst at the root.
	top := make([]core.ScoredID, 0, min(limit, len(sc.touched)))
	worse := func(i, j int) bool { return keyword.ByScoreThenID(top[i], top[j]) > 0 }
	for _, slot := range sc.touched {
		hit := core.ScoredID{ID: x.docs[slot].id, Score: min(1, sc.scores[slot]/bound)}
		sc.scores[slot] = 0
		switch {
		case len(top) < limit:
			top = append(top, hit)
			for i := len(top) - 1; i > 0 && worse(i, (i-1)/2); i = (i - 1) / 2 {
				top[i], top[(i-1)/2] = top[(i-1)/2], top[i]
			}
		case keyword.ByScoreThenID(hit, top[0]) < 0:
			top[0] = hit
			for i := 0; ; {
				l, r, m := 2*i+1, 2*i+2, i
				if l < len(top) && worse(l, m) {
					m = l
				}
				if r < len(top) && worse(r, m) {
					m = r
				}
				if m == i {
					break
				}
				top[i], top[m] = top[m], top[i]
				i = m
			}
		}
	}
	sc.touched = sc.touched[:0]
	slices.SortFunc(top, keyword.ByScoreThenID)
	return top
}

// kwScratch is a search's dense score array (all zeros between searches)
// and the slots it touched.
type kwScratch struct {
	scores  []float64
	touched []int32
}

// kwTerms is the keyword analysis of a run of notes, for kwIndex.putTerms:
// each note's distinct terms with their counts and its length, in a few
// shared arrays instead of a map per note (a first sync analyses every
// note, and those maps were most of its garbage). A term is a window into
// the note's text, or, lowered, into text (one allocation for many notes).
type kwTerms struct {
	terms   []string
	counts  []int32
	ends    []int32 // note i's terms are terms[ends[i-1]:ends[i]]
	lengths []int32
	text    []byte
}

// note returns what kwTerms holds of its i-th note.
func (t *kwTerms) note(i int) (terms []string, counts []int32, length int32) {
	start := int32(0)
	if i > 0 {
		start = t.ends[i-1]
	}
	end := t.ends[i]
	return t.terms[start:end], t.counts[start:end], t.lengths[i]
}

// kwCounter analyses notes one after another into a kwTerms, reusing its
// map from note to note. Not safe for concurrent use.
type kwCounter struct {
	slots   map[string]int32 // the note's term -> its index in out.terms
	scratch []byte
}

// add appends the analysis of a note's title and content to out: the
// terms keyword.Analyze(title, content) finds, counted the same way.
func (c *kwCounter) add(out *kwTerms, title, content string) {
	if c.slots == nil || len(c.slots) > 4096 {
		c.slots = make(map[string]int32, 256) // a huge note's map is not kept
	} else {
		clear(c.slots)
	}
	length := int32(0)
	yield := func(term string, lowered []byte) {
		length++
		if lowered != nil {
			if i, ok := c.slots[string(lowered)]; ok {
				out.counts[i]++
				return
			}
			// The lowered term goes to out.text, never written over: the
			// strings already taken from it stay valid when append moves
			// it, since they keep the old array.
			start := len(out.text)
			out.text = append(out.text, lowered...)
			term = unsafe.String(&out.text[start], len(lowered))
		} else if i, ok := c.slots[term]; ok {
			out.counts[i]++
			return
		}
		c.slots[term] = int32(len(out.terms))
		out.terms = append(out.terms, term)
		out.counts = append(out.counts, 1)
	}
	c.scratch = keyword.Scan(title, c.scratch, yield)
	c.scratch = keyword.Scan(content, c.scratch, yield)
	out.ends = append(out.ends, int32(len(out.terms)))
	out.lengths = append(out.lengths, length)
}

// DeferKeywordPostings is for a process that writes the vault and exits
// (a one-shot sync): a project this store creates from then on (its
// first write into an empty project) keeps no keyword postings in memory
// while it is written, only the dictionary and the term vectors of notes
// not committed yet (see kwIndex.deferred). Its term vectors and
// dictionary reach the disk exactly as without it; the first keyword
// search builds the postings from them, as a restart would. A project
// loaded from disk is not affected.
func (s *Store) DeferKeywordPostings() { s.deferPostings.Store(true) }

// postKeywords builds the postings of the project's keyword index if they
// were deferred (see DeferKeywordPostings).
func (s *Store) postKeywords(project string, g *graph) error {
	g.mu.RLock()
	deferred := g.search.keywords.deferred
	g.mu.RUnlock()
	if !deferred {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.dropped || !g.search.keywords.deferred {
		return nil // forgotten after a failed write: the next load has its own
	}
	if err := s.postDeferred(project, g); err != nil {
		return core.NewProviderError("read state", fmt.Errorf("keyword index of %s: %w", project, err))
	}
	return nil
}

// postFault, set by tests only, fails postDeferred's read with its error.
var postFault func() error

// postDeferred fills a deferred keyword index with every note's postings,
// from its term vector in kwdocs (in ID order, as a restart's load), or
// held in memory for a note not committed yet, or, for a note with
// neither, its text analysed again. On failure the index stays deferred,
// with no postings. The caller holds g.mu for writing.
func (s *Store) postDeferred(project string, g *graph) error {
	x := g.search.keywords
	held := x.held
	x.deferred, x.held = false, nil
	if x.readVec == nil {
		x.readVec = s.termVecReader(project)
	}
	fail := func(err error) error {
		for i := range x.post {
			x.post[i] = postings{last: -1}
			x.df[i] = 0
		}
		x.slots, x.docs = map[string]int32{}, nil
		x.live, x.dead, x.total = 0, 0, 0
		x.deferred, x.held = true, held
		return err
	}
	terms := len(x.names)
	err := s.kv.View(func(tx *kv.Tx) error {
		if postFault != nil {
			if err := postFault(); err != nil {
				return err
			}
		}
		return tx.ForEachRaw(kwDocsBucket(project), func(id, rec []byte) error {
			nd := g.notes[string(id)]
			if nd == nil {
				return nil
			}
			if _, ok := held[nd.ID]; ok {
				return nil
			}
			length, n := binary.Uvarint(rec)
			if n <= 0 {
				return fmt.Errorf("term vector of %s: %w", nd.ID, errBadRecord)
			}
			valid := true
			eachTerm(rec[n:], func(term, _ int32) { valid = valid && int(term) < terms })
			if !valid {
				return fmt.Errorf("term vector of %s: %w", nd.ID, errBadRecord)
			}
			x.putLoaded(nd.ID, int32(length), rec[n:])
			return nil
		})
	})
	if err != nil {
		return fail(err)
	}
	for id, h := range held {
		if nd := g.notes[id]; nd != nil {
			x.putVec(nd.ID, h.length, h.vec)
		}
	}
	var missing []*node
	for _, nd := range g.all {
		if _, ok := x.slots[nd.ID]; !ok {
			missing = append(missing, nd)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	bodies, err := s.bodiesOf(project, missing, false, false)
	if err != nil {
		return fail(err)
	}
	for i, nd := range missing {
		x.put(nd.ID, keyword.Analyze(nd.Title, bodies[i].content))
	}
	// Kept in memory if this fails: the next write or load stores them.
	_ = s.persistKeywords(project, g, missing)
	return nil
}
