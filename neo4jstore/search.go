package neo4jstore

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding/flat"
)

// Semantic search on Neo4j (core.SearchStore).
//
// A note's vector is the float32 property embedding of its node, with
// embeddingModel and embeddingHash beside it; it goes with the node when the
// note is deleted. The vector index note_embedding (cosine) has one
// dimension for the whole database. Migration 4 creates it with
// Config.VectorDimensions; after that SetNoteVectors adapts it to the
// vectors that actually arrive: when their dimension differs from the
// index's, the index is dropped and created again with theirs (a change of
// model), and Neo4j populates it in the background. Until it is online, and
// for queries whose dimension is not the index's, VectorSearch scans the
// project's vectors exactly instead, so answers never depend on the index.
//
// The index spans every project and model, so VectorSearch over-fetches
// (fetchFactor times the limit, at least minFetch, growing up to
// maxIndexFetch) and filters; when that still finds too few it falls back
// to the exact scan. The over-fetch also absorbs the index's approximation
// (HNSW, int8-quantised vectors in Neo4j 5.26): candidates are scored again
// exactly from their stored vectors, so scores equal memstore's and the
// top results match it (TestVectorSearchSameAsMemstore).

const (
	fetchFactor   = 2
	minFetch      = 40
	maxIndexFetch = 4096
	// maxQueryTerms bounds the words of one keyword query (Lucene refuses
	// queries of more than 1024 clauses).
	maxQueryTerms = 64
)

// vectorIndex caches what the store knows of note_embedding.
type vectorIndex struct {
	mu     sync.Mutex
	known  bool // dim and online reflect the database
	dim    int  // 0: no index
	online bool
}

// StaleVectors lists the notes without a vector of model for their current
// content, by ID.
func (s *Neo4jStore) StaleVectors(ctx context.Context, project, model string) ([]core.StaleNote, error) {
	if s.mirrorEnabled() {
		// A sync is about to embed, and a search will follow: have the
		// mirror ready by then (and following this process's writes).
		s.startMirror(project, model)
	}
	var out []core.StaleNote
	err := s.read(ctx, "stale vectors", func(t txn) error {
		records, err := t.collect(stmtSearchStale, map[string]any{"project": project, "model": model})
		if err != nil {
			return err
		}
		out = make([]core.StaleNote, 0, len(records))
		for _, r := range records {
			out = append(out, core.StaleNote{ID: str(r.Values[0]), Hash: str(r.Values[1])})
		}
		return nil
	})
	return out, err
}

// SetNoteVectors records vectors of model for existing notes in one
// transaction, after making sure the vector index has their dimension.
func (s *Neo4jStore) SetNoteVectors(ctx context.Context, project, model string, vectors []core.NoteVector) error {
	if model == "" {
		return fmt.Errorf("neo4jstore: set note vectors: %w", core.InvalidArgument("model is empty"))
	}
	dim := 0
	rows := make([]map[string]any, 0, len(vectors))
	for _, v := range vectors {
		row := map[string]any{"id": v.ID, "hash": v.Hash, "vector": nil}
		if vec := toFloat64s(v.Vector); vec != nil {
			if dim != 0 && len(vec) != dim {
				return fmt.Errorf("neo4jstore: set note vectors: %w",
					core.InvalidArgument("vectors of one batch differ in length: %d and %d", dim, len(vec)))
			}
			dim = len(vec)
			row["vector"] = vec
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil
	}
	if dim > 0 {
		if err := s.ensureVectorIndex(ctx, dim); err != nil {
			return err
		}
	}
	var epoch string
	var rev int64
	err := s.write(ctx, "set note vectors", func(t txn) error {
		r, err := t.single(stmtSearchBumpVectorRev, map[string]any{"project": project})
		if err != nil || r == nil {
			return err
		}
		epoch, rev = str(r.Values[0]), num(r.Values[1])
		_, err = t.collect(stmtSearchSetVectors, map[string]any{"project": project, "model": model, "rev": rev, "rows": rows})
		return err
	})
	if err == nil {
		s.applyOwnVectors(project, model, epoch, rev, vectors)
	}
	return err
}

// toFloat64s converts a vector for the driver; nil for an empty or zero
// vector (nothing to embed) and for one holding NaN or infinity.
func toFloat64s(v []float32) []float64 {
	var sum float64
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
		sum += out[i] * out[i]
	}
	if sum == 0 || math.IsNaN(sum) || math.IsInf(sum, 0) {
		return nil
	}
	return out
}

// ensureVectorIndex makes note_embedding index vectors of dim dimensions,
// dropping and creating it again when it has another dimension.
func (s *Neo4jStore) ensureVectorIndex(ctx context.Context, dim int) error {
	s.vindex.mu.Lock()
	defer s.vindex.mu.Unlock()
	if s.vindex.known && s.vindex.dim == dim {
		return nil
	}
	if err := s.refreshVectorIndexLocked(ctx); err != nil {
		return err
	}
	if s.vindex.dim == dim {
		return nil
	}
	op := fmt.Sprintf("recreate vector index for %d dimensions", dim)
	if s.vindex.dim != 0 {
		err := s.write(ctx, op, func(t txn) error {
			_, err := t.collect(stmtSchemaDropNoteEmbedding, nil)
			return err
		})
		if err != nil {
			return err
		}
	}
	err := s.write(ctx, op, func(t txn) error {
		_, err := t.collect(stmtSchemaNoteEmbedding, map[string]any{"dimensions": int64(dim)})
		return err
	})
	if err != nil {
		s.vindex.known = false
		return err
	}
	s.log.Info("neo4j vector index note_embedding created", "dimensions", dim, "previous", s.vindex.dim)
	s.vindex.known, s.vindex.dim, s.vindex.online = true, dim, false
	return nil
}

// refreshVectorIndexLocked reads the index's dimension and state.
func (s *Neo4jStore) refreshVectorIndexLocked(ctx context.Context) error {
	dim, online := 0, false
	err := s.read(ctx, "vector index info", func(t txn) error {
		dim, online = 0, false
		r, err := t.single(stmtSchemaVectorIndexInfo, nil)
		if err != nil || r == nil {
			return err
		}
		online = str(r.Values[0]) == "ONLINE"
		dim = int(num(r.Values[1]))
		return nil
	})
	if err != nil {
		s.vindex.known = false
		return err
	}
	s.vindex.known, s.vindex.dim, s.vindex.online = true, dim, online
	return nil
}

// vectorIndexFits reports whether note_embedding is online for queries of
// dim dimensions, asking the database while it is not.
func (s *Neo4jStore) vectorIndexFits(ctx context.Context, dim int) bool {
	s.vindex.mu.Lock()
	defer s.vindex.mu.Unlock()
	if !s.vindex.known || !s.vindex.online {
		if err := s.refreshVectorIndexLocked(ctx); err != nil {
			return false
		}
	}
	return s.vindex.online && s.vindex.dim == dim
}

// forgetVectorIndex makes the next query ask the database again (after the
// index failed, e.g. dropped by another process).
func (s *Neo4jStore) forgetVectorIndex() {
	s.vindex.mu.Lock()
	s.vindex.known = false
	s.vindex.mu.Unlock()
}

// VectorSearch returns the notes whose vector of model is closest to
// vector: through the vector index when it fits, else by an exact scan.
func (s *Neo4jStore) VectorSearch(ctx context.Context, project, model string, vector []float32, limit int) ([]core.ScoredID, error) {
	unit := flat.Normalize(vector) // nil for a zero vector, as toFloat64s
	if unit == nil || limit <= 0 {
		return nil, nil
	}
	if s.mirrorEnabled() {
		if hits, ok := s.mirrorSearch(ctx, project, model, unit, limit); ok {
			return hits, nil
		}
	}
	q := toFloat64s(vector)
	if s.vectorIndexFits(ctx, len(q)) {
		hits, complete, err := s.vectorSearchIndexed(ctx, project, model, q, limit)
		if err == nil && complete {
			return hits, nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			s.log.Debug("vector index query failed; scanning exactly", "err", err)
			s.forgetVectorIndex()
		}
	}
	return s.vectorSearchExact(ctx, project, model, q, limit)
}

// vectorSearchIndexed queries the index, fetching more until limit hits of
// the project and model are found or the index has no more; complete is
// false when maxIndexFetch was reached first.
func (s *Neo4jStore) vectorSearchIndexed(ctx context.Context, project, model string, q []float64, limit int) (hits []core.ScoredID, complete bool, err error) {
	fetch := max(minFetch, fetchFactor*limit)
	for {
		var fetched int
		err = s.read(ctx, "vector search", func(t txn) error {
			r, err := t.single(stmtSearchVectorIndex, map[string]any{
				"project": project, "model": model, "vector": q, "fetch": int64(fetch),
			})
			if err != nil || r == nil {
				return err
			}
			fetched = int(num(r.Values[0]))
			hits = decodeHits(r.Values[1], cosineFromNeo4j)
			return nil
		})
		if err != nil {
			return nil, false, err
		}
		if len(hits) >= limit || fetched < fetch {
			return cut(sortHits(hits), limit), true, nil
		}
		if fetch >= maxIndexFetch {
			return nil, false, nil
		}
		fetch = min(maxIndexFetch, fetch*fetchFactor)
	}
}

func (s *Neo4jStore) vectorSearchExact(ctx context.Context, project, model string, q []float64, limit int) ([]core.ScoredID, error) {
	var hits []core.ScoredID
	err := s.read(ctx, "vector search (exact)", func(t txn) error {
		records, err := t.collect(stmtSearchVectorExact, map[string]any{
			"project": project, "model": model, "vector": q, "limit": int64(limit),
		})
		if err != nil {
			return err
		}
		hits = make([]core.ScoredID, 0, len(records))
		for _, r := range records {
			score, _ := r.Values[1].(float64)
			hits = append(hits, core.ScoredID{ID: str(r.Values[0]), Score: cosineFromNeo4j(score)})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return sortHits(hits), nil
}

// cosineFromNeo4j turns Neo4j's cosine score, (1 + cosine) / 2, back into
// the cosine, clamped to [0, 1], the scale every store answers in.
func cosineFromNeo4j(score float64) float64 { return min(1, max(0, 2*score-1)) }

// KeywordSearch ranks the project's notes with the fulltext index.
// Lucene's BM25 scores have no fixed scale, so they are put on the one of
// embedding/keyword's index, which hybrid fusion is tuned for: a score is
// divided by the most a note could score for the query, the sum of the
// query terms' IDFs (from the index's note count and each term's document
// frequency), and capped at 1. A note holding every query word scores
// near 1, one holding only a common word near 0.
func (s *Neo4jStore) KeywordSearch(ctx context.Context, project, query string, limit int) ([]core.ScoredID, error) {
	terms := luceneTerms(query)
	if len(terms) == 0 || limit <= 0 {
		return nil, nil
	}
	lucene := strings.Join(terms, " ")
	fetch := max(minFetch, fetchFactor*limit)
	for {
		var hits []core.ScoredID
		var fetched int
		err := s.read(ctx, "keyword search", func(t txn) error {
			if _, err := t.collect(stmtSearchKeywordRefresh, nil); err != nil {
				return err
			}
			r, err := t.single(stmtSearchKeyword, map[string]any{
				"project": project, "query": lucene, "fetch": int64(fetch),
			})
			if err != nil || r == nil {
				return err
			}
			fetched = int(num(r.Values[0]))
			hits = decodeHits(r.Values[1], func(f float64) float64 { return f })
			return nil
		})
		if err != nil {
			return nil, err
		}
		// Past maxIndexFetch the best of the project are rare matches of
		// words common elsewhere; what was found is good enough.
		if len(hits) >= limit || fetched < fetch || fetch >= maxIndexFetch {
			hits = cut(sortHits(hits), limit)
			if len(hits) == 0 {
				return hits, nil
			}
			bound, err := s.idfBound(ctx, terms)
			if err != nil {
				return nil, err
			}
			out := hits[:0]
			for _, h := range hits {
				if score := min(1, h.Score*(bm25K1+1)/bound); score > 0 {
					out = append(out, core.ScoredID{ID: h.ID, Score: score})
				}
			}
			return out, nil
		}
		fetch = min(maxIndexFetch, fetch*fetchFactor)
	}
}

// BM25 as Lucene computes it (Lucene leaves out the (k1 + 1) factor of the
// textbook formula, which embedding/keyword keeps).
const (
	bm25K1 = 1.2
	// dfCap bounds the count of notes holding one query term: counting a
	// very common term exactly would cost more than its small weight is
	// worth.
	dfCap = 1000
)

// idfBound is the sum over terms of Lucene's IDF, ln(1 + (N - df + 0.5) /
// (df + 0.5)), at least a small positive number. The statistics come from
// s.keywordStats while they are fresh.
func (s *Neo4jStore) idfBound(ctx context.Context, terms []string) (float64, error) {
	notes, dfs, ok := s.keywordStats.lookup(terms, time.Now())
	if !ok {
		err := s.read(ctx, "keyword statistics", func(t txn) error {
			records, err := t.collect(stmtSearchKeywordStats, map[string]any{"terms": terms, "cap": int64(dfCap)})
			if err != nil {
				return err
			}
			dfs = make(map[string]int64, len(records))
			for _, r := range records {
				notes = num(r.Values[0])
				dfs[str(r.Values[1])] = num(r.Values[2])
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
		s.keywordStats.store(notes, dfs, time.Now())
	}
	var bound float64
	for _, term := range terms {
		n, df := float64(notes), float64(dfs[term])
		bound += math.Log(1 + (n-df+0.5)/(df+0.5))
	}
	return max(bound, 1e-9), nil
}

// keywordStats caches what idfBound reads, the number of indexed notes and
// each term's document frequency, for keywordStatsTTL. They move slowly (a
// sync adds notes; it does not reshape the vocabulary) and set only the
// scale of keyword scores, not their order, so figures a minute old cost
// nothing a user sees and save, on most searches, a statement that ran one
// fulltext query per term (measured: about a third of a keyword search at
// 100k notes).
type keywordStats struct {
	mu      sync.Mutex
	notes   int64
	notesAt time.Time
	df      map[string]termFrequency
}

type termFrequency struct {
	df int64
	at time.Time
}

const (
	keywordStatsTTL = time.Minute
	// keywordStatsMax bounds the cached terms; past it the cache starts over.
	keywordStatsMax = 10_000
)

// lookup returns the cached statistics of terms; ok is false unless every
// one is fresh.
func (c *keywordStats) lookup(terms []string, now time.Time) (notes int64, dfs map[string]int64, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if now.Sub(c.notesAt) > keywordStatsTTL {
		return 0, nil, false
	}
	dfs = make(map[string]int64, len(terms))
	for _, term := range terms {
		f, found := c.df[term]
		if !found || now.Sub(f.at) > keywordStatsTTL {
			return 0, nil, false
		}
		dfs[term] = f.df
	}
	return c.notes, dfs, true
}

func (c *keywordStats) store(notes int64, dfs map[string]int64, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.df == nil || len(c.df)+len(dfs) > keywordStatsMax {
		c.df = make(map[string]termFrequency, len(dfs))
	}
	c.notes, c.notesAt = notes, now
	for term, df := range dfs {
		c.df[term] = termFrequency{df: df, at: now}
	}
}

// luceneTerms turns plain text into Lucene query terms that match its words
// and nothing else: the text is split into runs of letters and digits (so
// no operator, field, wildcard, range or quote survives), lower-cased (so
// AND, OR, NOT and TO are words) and de-duplicated, and every character
// Lucene treats specially is escaped all the same. None when the text has
// no word.
func luceneTerms(text string) []string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	seen := make(map[string]bool, len(words))
	var out []string
	for _, w := range words {
		if seen[w] {
			continue
		}
		seen[w] = true
		var b strings.Builder
		for _, r := range w {
			if strings.ContainsRune(`+-&|!(){}[]^"~*?:\/`, r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		out = append(out, b.String())
		if len(out) == maxQueryTerms {
			break
		}
	}
	return out
}

// decodeHits reads a list of {id, score} maps, mapping each score.
func decodeHits(v any, score func(float64) float64) []core.ScoredID {
	list, _ := v.([]any)
	hits := make([]core.ScoredID, 0, len(list))
	for _, item := range list {
		m, _ := item.(map[string]any)
		f, _ := m["score"].(float64)
		hits = append(hits, core.ScoredID{ID: str(m["id"]), Score: score(f)})
	}
	return hits
}

// sortHits orders hits best first, ties by ID.
func sortHits(hits []core.ScoredID) []core.ScoredID {
	slices.SortFunc(hits, func(a, b core.ScoredID) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	return hits
}

func cut(hits []core.ScoredID, limit int) []core.ScoredID {
	if len(hits) > limit {
		return hits[:limit]
	}
	return hits
}
