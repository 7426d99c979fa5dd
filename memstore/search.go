package memstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding/flat"
	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
)

// Semantic search in the embedded store (core.SearchStore).
//
// Vectors are durable: each SetNoteVectors is one fsynced kv transaction
// (bucket vectorBucketPrefix+project, key = note ID), so a restart embeds
// nothing again. Notes are not durable, so the vectors read back at start
// wait in searchIndex.parked until the sync brings their note back; only
// then do they join the searchable rows.
//
// Vectors live in memory as int8 (flat.Int8, rows by node slot: a quarter
// of their float32 size) and on disk as float32. A search scans the int8
// rows in full for rescoreCandidates(limit) candidates, reads those
// candidates' exact vectors from disk and ranks them by their exact cosine:
// the answer is the exact search's (same IDs, same scores) unless an exact
// top hit falls outside the int8 candidates, which the int8 error (under
// about 0.01 of a cosine) makes rare (docs/ARCHITECTURE.md gives the
// measured recall). Keyword relevance is embedding/keyword's BM25 over
// title and content, kept current on every write. The vectors on disk are
// vectors.go's; the keyword analysis of a write's notes, keywordanalysis.go's.

// searchIndex is the search state of one project's graph, guarded by the
// graph's mutex.
type searchIndex struct {
	keywords *kwIndex
	// records is each note's vector record, by node slot like the rows:
	// a slice of 40 bytes a note instead of a map keyed by ID with its own
	// copies of the ID, model and hash strings (~25 MB at 100k notes).
	records []vectorRecord
	models  []string // the models of records, each string once
	// rowsHint is how many rows a new slab makes room for at once: the
	// graph's slots when its vectors load (0: grow as rows are set).
	rowsHint int
	slabs    map[string]*flat.Int8   // model -> its vectors, rows by node slot
	parked   map[string]storedVector // read from disk, note not synced yet
}

// vectorRecord says which model and content a note's vector came from
// (a note embedded with nothing to embed has a record but no row).
type vectorRecord struct {
	model, hash string
	set         bool
}

func newSearchIndex() *searchIndex {
	return &searchIndex{
		keywords: newKwIndex(),
		slabs:    map[string]*flat.Int8{},
		parked:   map[string]storedVector{},
	}
}

// record returns nd's vector record, if it has one.
func (x *searchIndex) record(nd *node) (vectorRecord, bool) {
	if int(nd.slot) >= len(x.records) {
		return vectorRecord{}, false
	}
	rec := x.records[nd.slot]
	return rec, rec.set
}

// model returns model as the one string kept for it.
func (x *searchIndex) model(model string) string {
	for _, m := range x.models {
		if m == model {
			return m
		}
	}
	model = strings.Clone(model) // it may be a window into a decoded record
	x.models = append(x.models, model)
	return model
}

// noteWritten updates the index for a note just stored, with the
// analysis of its keyword text.
func (x *searchIndex) noteWritten(nd *node, terms []string, counts []int32, length int32) {
	// Always analysed: a stored note keeps its content on disk only, so
	// there is nothing in memory to tell an unchanged text by.
	x.keywords.putTerms(nd.ID, terms, counts, length)
	if _, ok := x.record(nd); ok {
		return
	}
	if sv, ok := x.parked[nd.ID]; ok {
		delete(x.parked, nd.ID)
		x.set(nd, sv.Model, sv.Hash, decodeVector(sv.Vector))
	}
}

// noteDeleted forgets a deleted note (its vector record on disk goes in
// the deletion's transaction: see Store.persist).
func (x *searchIndex) noteDeleted(nd *node) {
	x.keywords.remove(nd.ID)
	x.unset(nd)
	delete(x.parked, nd.ID)
}

// set records a normalised vector (nil: nothing to embed) for nd.
func (x *searchIndex) set(nd *node, model, hash string, vec []float32) {
	x.unset(nd)
	if hash == nd.Hash {
		hash = nd.Hash // the node's string, not a copy of it
	} else {
		hash = strings.Clone(hash) // it may be a window into a load's buffer
	}
	model = x.model(model)
	if n := int(nd.slot) + 1; n > len(x.records) {
		x.records = slices.Grow(x.records, n-len(x.records))[:n]
	}
	x.records[nd.slot] = vectorRecord{model: model, hash: hash, set: true}
	if len(vec) == 0 {
		return
	}
	s := x.slabs[model]
	if s == nil || s.Dim() != len(vec) {
		// A model's dimension never changes; a different one means the old
		// rows are useless, so they go (their notes embed again).
		if s != nil {
			for slot, rec := range x.records {
				if rec.set && rec.model == model && slot != int(nd.slot) {
					x.records[slot] = vectorRecord{}
				}
			}
		}
		s = flat.NewInt8(len(vec))
		s.Reserve(x.rowsHint)
		x.slabs[model] = s
	}
	s.Set(int(nd.slot), vec)
}

// unset removes nd's vector.
func (x *searchIndex) unset(nd *node) {
	rec, ok := x.record(nd)
	if !ok {
		return
	}
	x.records[nd.slot] = vectorRecord{}
	s := x.slabs[rec.model]
	if s == nil {
		return
	}
	s.Clear(int(nd.slot))
	if s.Len() == 0 {
		delete(x.slabs, rec.model)
	}
}

// VectorSearch scans every vector of model exactly and returns the limit
// with the highest cosine similarity to vector.
func (s *Store) VectorSearch(ctx context.Context, project, model string, vector []float32, limit int) ([]core.ScoredID, error) {
	if err := s.awaitLoaded(ctx, project, true); err != nil {
		return nil, fmt.Errorf("memstore: vector search: %w", err)
	}
	g, unlock, err := s.reader(ctx, "vector search", project)
	defer unlock()
	if err != nil || g == nil || limit <= 0 {
		return nil, err
	}
	q := flat.Normalize(vector)
	sl := g.search.slabs[model]
	if q == nil || sl == nil {
		return nil, nil
	}
	hits, err := s.rescore(project, g, model, q, sl.TopK(q, rescoreCandidates(limit)), limit)
	if err != nil {
		return nil, fmt.Errorf("memstore: vector search: %w", err)
	}
	return hits, nil
}

// rescoreCandidates is how many int8 candidates a search of limit hits
// rescores exactly: enough that an exact top hit missing from them is
// rare (see docs/ARCHITECTURE.md for the recall measured), few enough
// that reading their vectors from disk stays a small part of a search.
func rescoreCandidates(limit int) int { return max(4*limit, limit+rescoreExtra) }

// rescoreExtra is the least number of candidates beyond limit.
const rescoreExtra = 100

// rescore reads the exact vectors of the int8 candidates cands from disk
// and returns the best limit by their exact cosine with q, best first,
// ties by ID, scores clamped to [0, 1] (as flat.Index.TopK). A candidate
// whose stored vector is of another model now (re-embedded meanwhile) is
// left out. The caller holds g.mu for reading.
func (s *Store) rescore(project string, g *graph, model string, q []float32, cands []flat.RowScore, limit int) ([]core.ScoredID, error) {
	out := make([]core.ScoredID, 0, len(cands))
	bucket := vectorBucketPrefix + project
	var c vectorChunk // one record at a time
	err := s.kv.View(func(tx *kv.Tx) error {
		get := tx.Lookup(bucket) // read with pread: maps none of the file (kv's walk.go)
		for _, cand := range cands {
			nd := g.bySlot(cand.Row)
			if nd == nil {
				continue
			}
			rec := get(nd.ID)
			if rec == nil {
				continue
			}
			c.reset()
			if err := c.add(nd.ID, rec); err != nil {
				return fmt.Errorf("decode vector of %s: %w", nd.ID, err)
			}
			_, m, _, vec := c.entry(0)
			if m != model || len(vec) != len(q) {
				continue
			}
			out = append(out, core.ScoredID{ID: nd.ID, Score: min(1, max(0, float64(flat.Dot(q, vec))))})
		}
		return nil
	})
	if err != nil {
		return nil, core.NewProviderError("read state", err)
	}
	slices.SortFunc(out, func(a, b core.ScoredID) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out[:min(limit, len(out))], nil
}

// KeywordSearch ranks the project's notes by BM25 over title and content
// (keyword.Index's normalised scores, from the compact kwIndex).
func (s *Store) KeywordSearch(ctx context.Context, project, query string, limit int) ([]core.ScoredID, error) {
	if err := s.awaitLoaded(ctx, project, false); err != nil {
		return nil, fmt.Errorf("memstore: keyword search: %w", err)
	}
	g, unlock, err := s.reader(ctx, "keyword search", project)
	defer unlock()
	if err != nil || g == nil || limit <= 0 {
		return nil, err
	}
	return g.search.keywords.search(query, limit), nil
}

// awaitLoaded waits until the project's vectors (vectors) or keyword
// index (!vectors) are loaded: a graph loaded from disk fills them in the
// background (loadSearch).
func (s *Store) awaitLoaded(ctx context.Context, project string, vectors bool) error {
	g, err := s.loadedGraph(project)
	if err != nil || g == nil {
		return err
	}
	g.startSearch()
	g.mu.RLock()
	ready := g.keywordsReady
	if vectors {
		ready = g.vectorsReady
	}
	g.mu.RUnlock()
	if err := loaded(ctx, ready); err != nil || vectors {
		return err
	}
	return s.postKeywords(project, g)
}
