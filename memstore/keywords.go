package memstore

import (
	"encoding/binary"
	"slices"
	"sync"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding/keyword"
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
// rebuilt from the term vectors. At 100k notes: 200 MB → ~70 MB.
//
// The term vectors and the dictionary are persisted with the notes
// (persist.go), so a restart rebuilds the postings from them instead of
// analysing every note's text again. Not safe for concurrent use: the
// graph's lock guards it.
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
	scratch   sync.Pool
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
}

func newKwIndex() *kwIndex {
	return &kwIndex{terms: map[string]int32{}, slots: map[string]int32{}}
}

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
	type tf struct{ term, n int32 }
	pairs := make([]tf, 0, 64)
	a.Each(func(t string, n int) { pairs = append(pairs, tf{x.term(t), int32(n)}) })
	slices.SortFunc(pairs, func(a, b tf) int { return int(a.term - b.term) })
	vec := make([]byte, 0, 2*len(pairs)+8)
	prev := int32(0)
	for _, p := range pairs {
		vec = binary.AppendUvarint(vec, uint64(p.term-prev))
		vec = binary.AppendUvarint(vec, uint64(p.n))
		prev = p.term
	}
	x.putVec(id, int32(a.Len()), vec)
}

// putVec adds or replaces the note id with a term vector.
func (x *kwIndex) putVec(id string, length int32, vec []byte) {
	x.remove(id)
	slot := int32(len(x.docs))
	x.docs = append(x.docs, kwDoc{id: id, length: length, vec: vec})
	x.slots[id] = slot
	x.live++
	x.total += int(length)
	eachTerm(vec, func(term, tf int32) {
		x.post[term].add(slot, tf)
		x.df[term]++
	})
}

func (p *postings) add(slot, tf int32) {
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

// vec returns the term vector and length of the live note id.
func (x *kwIndex) vec(id string) (vec []byte, length int32, ok bool) {
	slot, ok := x.slots[id]
	if !ok {
		return nil, 0, false
	}
	d := &x.docs[slot]
	return d.vec, d.length, true
}

// remove drops the note id; unknown ids are ignored.
func (x *kwIndex) remove(id string) {
	slot, ok := x.slots[id]
	if !ok {
		return
	}
	d := &x.docs[slot]
	eachTerm(d.vec, func(term, _ int32) { x.df[term]-- })
	x.total -= int(d.length)
	*d = kwDoc{}
	delete(x.slots, id)
	x.live--
	x.dead++
	if x.dead > 1024 && x.dead > x.live {
		x.compact()
	}
}

// compact renumbers the live slots and rebuilds every posting list from
// the term vectors.
func (x *kwIndex) compact() {
	docs := make([]kwDoc, 0, x.live)
	for _, d := range x.docs {
		if d.id != "" {
			x.slots[d.id] = int32(len(docs))
			docs = append(docs, d)
		}
	}
	for i := range x.post {
		x.post[i] = postings{last: -1}
	}
	for slot, d := range docs {
		eachTerm(d.vec, func(term, tf int32) { x.post[term].add(int32(slot), tf) })
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
