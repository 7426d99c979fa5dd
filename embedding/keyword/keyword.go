// Package keyword is a small in-memory BM25 index: the keyword half of
// hybrid search for stores that have no full-text index of their own, and
// the baseline the built-in embedder is measured against.
//
// Analysis is deliberately plain, close to a search engine's standard
// analyser: Unicode letters and digits form terms, lower-cased, English
// stop words removed, no stemming.
package keyword

import (
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/vaultgraph/vaultgraph/core"
)

// BM25 parameters: the usual defaults.
const (
	k1 = 1.2
	b  = 0.75
)

// Index holds documents for BM25 ranking. It is safe for concurrent use.
//
// Layout, for search over 100k documents in milliseconds: documents are
// numbered slots, terms are interned, and each term's postings are a slice
// of (slot, frequency) pairs, so a search walks flat arrays and adds into a
// pooled dense score array, then keeps the best with a bounded heap. A
// deleted or replaced document's slot is left dead (skipped by searches)
// and the postings are compacted once dead slots outnumber live ones.
type Index struct {
	mu       sync.RWMutex
	terms    map[string]int32 // term -> term number
	postings [][]posting      // by term number; may name dead slots
	df       []int32          // by term number: live documents holding it
	slots    map[string]int32 // document id -> its live slot
	docs     []doc            // by slot
	live     int
	dead     int
	total    int // sum of live documents' lengths
	scratch  sync.Pool
}

type posting struct {
	slot int32
	tf   int32
}

// doc is one slot: a live document, or a dead one (id "").
type doc struct {
	id     string
	length int32
	terms  []int32 // distinct term numbers, to undo df on delete
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{terms: map[string]int32{}, slots: map[string]int32{}}
}

// Analysis is a document's terms, counted: the part of Put that needs no
// lock, so a caller with many documents can compute it concurrently
// (Analyze) and then add them one by one (PutAnalyzed).
type Analysis struct {
	slots  map[string]int32 // term → its index in counts
	counts []int32
	length int
}

// Analyze splits text into terms and counts them. Several parts are
// analysed as if joined by a separator (a note's title and content,
// without a copy of the content to join them).
func Analyze(parts ...string) Analysis {
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	a := Analysis{slots: make(map[string]int32, min(size/32, 1024))}
	var scratch []byte
	for _, text := range parts {
		scratch = scanTerms(text, scratch, func(term string, lowered []byte) {
			a.length++
			// A term counted before is found by its bytes, without a
			// string of its own: only a new lowered term is copied.
			if lowered != nil {
				if i, ok := a.slots[string(lowered)]; ok {
					a.counts[i]++
					return
				}
				term = string(lowered)
			} else if i, ok := a.slots[term]; ok {
				a.counts[i]++
				return
			}
			a.slots[term] = int32(len(a.counts))
			a.counts = append(a.counts, 1)
		})
	}
	return a
}

// Len is the number of terms the analysed text holds, repeats counted:
// the document's length for BM25.
func (a Analysis) Len() int { return a.length }

// Each calls fn with every distinct term of the analysis and how often it
// occurs, in no particular order: for indexes other than Index (the
// embedded store keeps its own, compact one).
func (a Analysis) Each(fn func(term string, tf int)) {
	for t, at := range a.slots {
		fn(t, int(a.counts[at]))
	}
}

// BM25 scores one posting: a term of inverse document frequency idf found
// tf times in a document of length docLen, where documents are avgLen
// long on average. Index.Search sums these over a query's terms; another
// index that sums them in the same order gives the same scores.
func BM25(idf float64, tf, docLen int32, avgLen float64) float64 {
	f := float64(tf)
	norm := k1 * (1 - b + b*float64(docLen)/avgLen)
	return idf * f * (k1 + 1) / (f + norm)
}

// IDF is BM25's inverse document frequency of a term that df of n
// documents hold.
func IDF(n, df float64) float64 { return math.Log(1 + (n-df+0.5)/(df+0.5)) }

// QueryTerms are the distinct terms of a query, in order: what Search sums
// over.
func QueryTerms(query string) []string { return dedupe(Terms(query)) }

// ByScoreThenID orders hits best first, ties by ID ascending, as Search
// returns them.
func ByScoreThenID(a, b core.ScoredID) int { return byScoreThenID(a, b) }

// Put adds or replaces the document id.
func (ix *Index) Put(id, text string) { ix.PutAnalyzed(id, Analyze(text)) }

// PutAnalyzed adds or replaces the document id, given its Analysis.
func (ix *Index) PutAnalyzed(id string, a Analysis) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.remove(id)
	slot := int32(len(ix.docs))
	d := doc{id: id, length: int32(a.length), terms: make([]int32, 0, len(a.counts))}
	for t, at := range a.slots {
		tf := a.counts[at]
		tn, ok := ix.terms[t]
		if !ok {
			tn = int32(len(ix.postings))
			// A copy: t may point into the document's text, which the
			// index would otherwise keep alive (250 MB of a 100k-note
			// vault).
			ix.terms[strings.Clone(t)] = tn
			ix.postings = append(ix.postings, nil)
			ix.df = append(ix.df, 0)
		}
		ix.postings[tn] = append(ix.postings[tn], posting{slot: slot, tf: tf})
		ix.df[tn]++
		d.terms = append(d.terms, tn)
	}
	ix.docs = append(ix.docs, d)
	ix.slots[id] = slot
	ix.live++
	ix.total += a.length
}

// Delete removes the document id; unknown ids are ignored.
func (ix *Index) Delete(id string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.remove(id)
}

func (ix *Index) remove(id string) {
	slot, ok := ix.slots[id]
	if !ok {
		return
	}
	d := &ix.docs[slot]
	for _, tn := range d.terms {
		ix.df[tn]--
	}
	ix.total -= int(d.length)
	*d = doc{}
	delete(ix.slots, id)
	ix.live--
	ix.dead++
	if ix.dead > 1024 && ix.dead > ix.live {
		ix.compact()
	}
}

// compact drops dead slots: documents are renumbered and every posting
// list filtered; terms no live document holds keep their number with an
// empty list.
func (ix *Index) compact() {
	renumber := make([]int32, len(ix.docs))
	docs := make([]doc, 0, ix.live)
	for i, d := range ix.docs {
		if d.id == "" {
			renumber[i] = -1
			continue
		}
		renumber[i] = int32(len(docs))
		ix.slots[d.id] = int32(len(docs))
		docs = append(docs, d)
	}
	for tn, list := range ix.postings {
		out := list[:0]
		for _, p := range list {
			if r := renumber[p.slot]; r >= 0 {
				out = append(out, posting{slot: r, tf: p.tf})
			}
		}
		ix.postings[tn] = slices.Clip(out)
	}
	ix.docs = docs
	ix.dead = 0
}

// Len is the number of documents.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.live
}

// Search returns up to limit documents matching any term of query, best
// first (ties by id), with scores in (0, 1]: the BM25 score divided by the
// sum of the query terms' IDFs, capped at 1. A document holding every query
// term once, at average length, scores about 1; one holding only a common
// term scores near 0; a query term no document holds lowers every score.
// So scores say how well the query's words are covered, and can be weighed
// against cosine similarity (hybrid.Weighted) without per-query rescaling.
func (ix *Index) Search(query string, limit int) []core.ScoredID {
	terms := dedupe(Terms(query))
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.live == 0 || len(terms) == 0 || limit <= 0 {
		return nil
	}
	n := float64(ix.live)
	avg := float64(ix.total) / n
	sc := ix.scratchFor(len(ix.docs))
	defer ix.scratch.Put(sc)
	var bound float64
	for _, t := range terms {
		tn, ok := ix.terms[t]
		df := 0.0
		if ok {
			df = float64(ix.df[tn])
		}
		idf := IDF(n, df)
		bound += idf
		if !ok {
			continue
		}
		for _, p := range ix.postings[tn] {
			d := &ix.docs[p.slot]
			if d.id == "" {
				continue
			}
			if sc.scores[p.slot] == 0 {
				sc.touched = append(sc.touched, p.slot)
			}
			sc.scores[p.slot] += BM25(idf, p.tf, d.length, avg)
		}
	}
	top := make([]core.ScoredID, 0, min(limit, len(sc.touched)))
	for _, slot := range sc.touched {
		hit := core.ScoredID{ID: ix.docs[slot].id, Score: min(1, sc.scores[slot]/bound)}
		sc.scores[slot] = 0
		if len(top) < limit {
			top = append(top, hit)
			heapUp(top, len(top)-1)
		} else if byScoreThenID(hit, top[0]) < 0 {
			top[0] = hit
			heapDown(top, 0)
		}
	}
	sc.touched = sc.touched[:0]
	slices.SortFunc(top, byScoreThenID)
	return top
}

// scratch is a search's dense score array (all zeros between searches) and
// the slots it touched.
type scratch struct {
	scores  []float64
	touched []int32
}

func (ix *Index) scratchFor(slots int) *scratch {
	sc, _ := ix.scratch.Get().(*scratch)
	if sc == nil {
		sc = &scratch{}
	}
	if len(sc.scores) < slots {
		sc.scores = make([]float64, slots+slots/4)
	}
	return sc
}

// The heap keeps the worst kept hit at the root: a hit is "less" (nearer
// the root) when byScoreThenID ranks it after the other.
func heapLess(h []core.ScoredID, i, j int) bool { return byScoreThenID(h[i], h[j]) > 0 }

func heapUp(h []core.ScoredID, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !heapLess(h, i, p) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func heapDown(h []core.ScoredID, i int) {
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h) && heapLess(h, l, m) {
			m = l
		}
		if r < len(h) && heapLess(h, r, m) {
			m = r
		}
		if m == i {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// Terms analyses text into index terms: lower-cased runs of letters and
// digits, stop words removed.
func Terms(text string) []string {
	var out []string
	scanTerms(text, nil, func(term string, lowered []byte) {
		if lowered != nil {
			term = string(lowered)
		}
		out = append(out, term)
	})
	return out
}

// Scan calls yield with each term of text in order, exactly as Analyze
// and Terms see them: a term already in lower case comes as a window into
// text (lowered nil), any other lowered into scratch space, valid until
// yield returns. It returns that space for the next call: for an index of
// its own that counts terms without an Analysis per document.
func Scan(text string, scratch []byte, yield func(term string, lowered []byte)) []byte {
	return scanTerms(text, scratch, yield)
}

// wordByte marks the ASCII letters and digits.
var wordByte = func() (t [utf8.RuneSelf]bool) {
	for c := range utf8.RuneSelf {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	return t
}()

// scanTerms calls yield with each term of text, in order: the runs of
// Unicode letters and digits, lower-cased, that are not stop words. A run
// already in lower case comes as a substring of text (lowered nil); any
// other comes lowered into scratch space, valid until yield returns.
// scanTerms returns that space for reuse.
//
// This is strings.ToLower of the text split by strings.FieldsFunc at
// whatever is not a letter or digit (lowering a rune never changes
// whether it is one), in one pass, without copying the text or building
// a list of its fields: a first sync analyses every note.
func scanTerms(text string, scratch []byte, yield func(term string, lowered []byte)) []byte {
	n := len(text)
	for i := 0; i < n; {
		if c := text[i]; c < utf8.RuneSelf {
			if !wordByte[c] {
				i++
				continue
			}
		} else if r, size := utf8.DecodeRuneInString(text[i:]); !isWordRune(r) {
			i += size
			continue
		}
		start, upper, ascii := i, false, true
		for i < n {
			c := text[i]
			if c < utf8.RuneSelf {
				if !wordByte[c] {
					break
				}
				upper = upper || c <= 'Z' && c >= 'A'
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(text[i:])
			if !isWordRune(r) {
				break
			}
			ascii = false
			i += size
		}
		term := text[start:i]
		switch {
		case !ascii: // as strings.ToLower, rune by rune
			scratch = scratch[:0]
			for _, r := range term {
				scratch = utf8.AppendRune(scratch, unicode.ToLower(r))
			}
		case upper:
			scratch = append(scratch[:0], term...)
			for k, c := range scratch {
				if 'A' <= c && c <= 'Z' {
					scratch[k] = c + 'a' - 'A'
				}
			}
		default:
			if !isStopWord(term) {
				yield(term, nil)
			}
			continue
		}
		if !isStopWord(unsafe.String(unsafe.SliceData(scratch), len(scratch))) {
			yield("", scratch)
		}
	}
	return scratch
}

// isWordRune reports whether r is a letter or a digit.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func dedupe(terms []string) []string {
	seen := make(map[string]bool, len(terms))
	out := make([]string, 0, len(terms))
	for _, t := range terms {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

func byScoreThenID(a, b core.ScoredID) int {
	switch {
	case a.Score > b.Score:
		return -1
	case a.Score < b.Score:
		return 1
	}
	return strings.Compare(a.ID, b.ID)
}

// isStopWord reports whether the lowered term w is a stop word, as
// stopWords[w] does without hashing w: a first sync looks up every word
// of every note, and the map's lookups were a third of the tokenizer's
// time (BenchmarkScan, prose: 2.7-3.6 µs against 3.6-4.7 with the map).
// Stop words sit in stopBuckets by stopHash, at most two to a bucket; the
// word is then compared.
func isStopWord(w string) bool {
	if len(w) == 0 || len(w) > maxStopWord {
		return false
	}
	b := &stopBuckets[stopHash(w, stopMul)]
	return b[0] == w || b[1] == w
}

// maxStopWord is the length of the longest stop word.
const maxStopWord = 7

// stopHash mixes a word's length and its first, middle and last bytes.
func stopHash(w string, mul uint32) uint8 {
	x := uint32(w[0]) | uint32(w[len(w)/2])<<8 | uint32(w[len(w)-1])<<16 | uint32(len(w))<<24
	return uint8((x * mul) >> 24)
}

// stopMul and stopBuckets are found at start: the first odd multiplier
// that puts no more than two stop words in one bucket.
var stopMul, stopBuckets = func() (uint32, [256][2]string) {
	for mul := uint32(0x9E3779B1); ; mul += 2 {
		var t [256][2]string
		ok := true
		for w := range stopWords {
			b := &t[stopHash(w, mul)]
			switch {
			case b[0] == "":
				b[0] = w
			case b[1] == "":
				b[1] = w
			default:
				ok = false
			}
			if !ok {
				break
			}
		}
		if ok {
			return mul, t
		}
	}
}()

// stopWords is the English stop word list of Lucene's classic analysers,
// plus contractions' remainders and a few pronouns.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be but by for if in into is it no not of on or
		such that the their then there these they this to was will with
		i me my we our you your he him his she her its them what which who whom
		do does did doing have has had been being am were would should could can
		s t don won isn aren didn doesn how when where why so than too very just
		from up down out about over under again further once here all any both each
		few more most other some only own same`) {
		m[w] = true
	}
	return m
}()
