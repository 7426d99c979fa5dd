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

	"github.com/vaultgraph/vaultgraph/core"
)

// BM25 parameters: the usual defaults.
const (
	k1 = 1.2
	b  = 0.75
)

// Index holds documents for BM25 ranking. It is safe for concurrent use.
type Index struct {
	mu       sync.RWMutex
	postings map[string]map[string]int // term -> document id -> term frequency
	lengths  map[string]int            // document id -> number of terms
	total    int                       // sum of lengths
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{postings: map[string]map[string]int{}, lengths: map[string]int{}}
}

// Put adds or replaces the document id.
func (ix *Index) Put(id, text string) {
	terms := Terms(text)
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.remove(id)
	for _, t := range terms {
		docs := ix.postings[t]
		if docs == nil {
			docs = map[string]int{}
			ix.postings[t] = docs
		}
		docs[id]++
	}
	ix.lengths[id] = len(terms)
	ix.total += len(terms)
}

// Delete removes the document id; unknown ids are ignored.
func (ix *Index) Delete(id string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.remove(id)
}

func (ix *Index) remove(id string) {
	n, ok := ix.lengths[id]
	if !ok {
		return
	}
	for t, docs := range ix.postings {
		if _, ok := docs[id]; ok {
			delete(docs, id)
			if len(docs) == 0 {
				delete(ix.postings, t)
			}
		}
	}
	delete(ix.lengths, id)
	ix.total -= n
}

// Len is the number of documents.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.lengths)
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
	if len(ix.lengths) == 0 || len(terms) == 0 || limit <= 0 {
		return nil
	}
	n := float64(len(ix.lengths))
	avg := float64(ix.total) / n
	scores := map[string]float64{}
	var bound float64
	for _, t := range terms {
		docs := ix.postings[t]
		df := float64(len(docs))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		bound += idf
		for id, tf := range docs {
			f := float64(tf)
			norm := k1 * (1 - b + b*float64(ix.lengths[id])/avg)
			scores[id] += idf * f * (k1 + 1) / (f + norm)
		}
	}
	hits := make([]core.ScoredID, 0, len(scores))
	for id, s := range scores {
		hits = append(hits, core.ScoredID{ID: id, Score: min(1, s/bound)})
	}
	slices.SortFunc(hits, byScoreThenID)
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

// Terms analyses text into index terms: lower-cased runs of letters and
// digits, stop words removed.
func Terms(text string) []string {
	fields := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	out := fields[:0]
	for _, f := range fields {
		if !stopWords[f] {
			out = append(out, f)
		}
	}
	return out
}

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
