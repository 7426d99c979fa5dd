package semantic

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding/hybrid"
)

// Candidates fetched from each half of a search: enough that a note ranked
// modestly by one half and well by the other still meets the fusion.
const (
	candidateFactor = 3
	minCandidates   = 30
)

// Searcher answers hybrid searches: the query's vector against the notes'
// vectors of the same model, fused with keyword relevance by a weighted sum
// (hybrid.Weighted, VectorWeight on the cosine), so a paraphrase finds its
// note by meaning and an exact name or rare word by its letters. Scores are
// in [0, 1], higher is better; notes scoring 0 are left out.
//
// When the embedding provider fails (a remote service down), Search still
// answers from keyword relevance alone, whose share of the score is at
// most 1 - VectorWeight, and logs the failure: a degraded answer beats
// none for a model looking for a note.
//
// With a fast tier (WithFastTier), a note is compared through the best
// vector it has: its vector of the embedder's model, or, while it has
// none yet, its fast vector, whose cosine is first mapped onto the
// embedder's scale (the fast tier's Calibrate method).
type Searcher struct {
	project    string
	store      core.SearchStore
	embedder   core.Embedder
	fast       core.Embedder
	pending    func() int
	prepare    func(context.Context)
	warn       func(pending int) string
	unembedded func() int
	floor      float64
	weight     float64
	log        *slog.Logger
	queries    *lru.Cache[string, []float32] // query → its vector of embedder's model
}

// queryCacheSize bounds the query-vector cache: 512 vectors of 384 floats
// are 0.8 MB. A model repeats and refines queries; a repeated one skips the
// transformer (~2-6 CPU-ms) and costs a scan only.
const queryCacheSize = 512

// WithRelevanceFloor makes a search leave out the notes scoring below
// floor (the fused score), as long as the query was embedded (a search
// on keywords alone, its embedder down, keeps every hit: its scores are
// on another scale). When every hit is left out the answer is empty and a
// call warning (core.AddCallWarnings) says that nothing is relevant and
// names the best note left out, so a model can tell "nothing relevant"
// from a failure. The floors of the built-in models are calibrated on the
// eval sets (DefaultFloor, StaticFloor; docs/SEARCH.md).
func WithRelevanceFloor(floor float64) SearcherOption {
	return func(s *Searcher) { s.floor = floor }
}

// SearcherOption tunes a Searcher.
type SearcherOption func(*Searcher)

// WithFastTier makes searches also compare the notes that have only a
// vector of fast (see IndexerConfig.Fast), as long as pending (usually
// Indexer.Pending) is not 0: some notes still wait for the embedder's
// vector. fast may have a method Calibrate(float64) float64 mapping its
// cosines onto the embedder's; without one they are compared as they are.
func WithFastTier(fast core.Embedder, pending func() int) SearcherOption {
	return func(s *Searcher) { s.fast, s.pending = fast, pending }
}

// WithPrepare makes every search first call prepare, e.g. to wait for
// (or run) the first pass of vectors; it must return when ctx ends.
func WithPrepare(prepare func(ctx context.Context)) SearcherOption {
	return func(s *Searcher) { s.prepare = prepare }
}

// WithPendingWarning makes a search that ran while notes had no vector of
// the embedder's model (pending, usually Indexer.Pending, above 0) add
// warn(pending) to the call's warnings (core.AddCallWarnings), so the
// caller knows the ranking compared some notes by their fast vectors or
// keywords only.
func WithPendingWarning(pending func() int, warn func(pending int) string) SearcherOption {
	return func(s *Searcher) { s.unembedded, s.warn = pending, warn }
}

// NewSearcher returns a Searcher over project's notes in store; logger
// (nil: discarded) hears about embedding failures.
func NewSearcher(project string, store core.SearchStore, embedder core.Embedder, logger *slog.Logger, opts ...SearcherOption) (*Searcher, error) {
	if project == "" || store == nil || embedder == nil {
		return nil, errors.New("semantic: searcher needs a project, a store and an embedder")
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	queries, err := lru.New[string, []float32](queryCacheSize)
	if err != nil {
		return nil, err
	}
	s := &Searcher{project: project, store: store, embedder: embedder, weight: hybrid.DefaultVectorWeight, log: logger, queries: queries}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

var _ core.Searcher = (*Searcher)(nil)

// Search returns up to limit notes best matching query. The keyword half
// runs while the query is embedded and its vector searched: on Neo4j each
// half waits on its own round trips, and together they were most of a
// search's time.
func (s *Searcher) Search(ctx context.Context, query string, limit int) ([]core.ScoredID, error) {
	if limit <= 0 {
		return nil, nil
	}
	if s.prepare != nil {
		s.prepare(ctx)
	}
	if s.warn != nil {
		if p := s.unembedded(); p > 0 {
			core.AddCallWarnings(ctx, s.warn(p))
		}
	}
	n := max(minCandidates, candidateFactor*limit)
	type result struct {
		hits []core.ScoredID
		err  error
	}
	keywordDone := make(chan result, 1)
	go func() {
		hits, err := s.store.KeywordSearch(ctx, s.project, query, n)
		keywordDone <- result{hits, err}
	}()
	var fastDone chan result
	if s.fast != nil && (s.pending == nil || s.pending() != 0) {
		fastDone = make(chan result, 1)
		go func() {
			hits, err := s.fastHalf(ctx, query, n)
			fastDone <- result{hits, err}
		}()
	}
	vector, embedded, err := s.vectorHalf(ctx, query, n)
	kw := <-keywordDone
	if fastDone != nil {
		f := <-fastDone
		if err == nil {
			err = f.err
		}
		vector = hybrid.Tiered(n, vector, f.hits)
	}
	if err != nil {
		return nil, err
	}
	if kw.err != nil {
		return nil, fmt.Errorf("semantic: keyword search: %w", kw.err)
	}
	// Search answers notes: an attachment's vector is its file name's, a
	// canvas is reached from the notes it links (core.NoteHits).
	fused := hybrid.Weighted(s.weight, limit, core.NoteHits(vector), core.NoteHits(kw.hits))
	floor := 0.0
	if embedded {
		floor = s.floor
	}
	out := fused[:0]
	var best core.ScoredID
	for _, h := range fused {
		if h.Score > 0 && h.Score >= floor {
			out = append(out, h)
		} else if h.Score > best.Score {
			best = h
		}
	}
	if len(out) == 0 && best.Score > 0 {
		core.AddCallWarnings(ctx, fmt.Sprintf("nothing relevant: no note reaches the relevance floor %.2f "+
			"(the closest, %s, scores %.2f); rephrase the query, or search_by_tags / get_node for exact names", floor, best.ID, best.Score))
	}
	return out, nil
}

// vectorHalf embeds query and returns its n nearest notes and true; nil
// and false without an error when the embedder failed (the search goes on
// with keywords).
func (s *Searcher) vectorHalf(ctx context.Context, query string, n int) ([]core.ScoredID, bool, error) {
	vec, err := s.queryVector(ctx, query)
	switch {
	case err == nil:
		hits, err := s.store.VectorSearch(ctx, s.project, NoteModel(s.embedder), vec, n)
		if err != nil {
			return nil, false, fmt.Errorf("semantic: vector search: %w", err)
		}
		return hits, true, nil
	case ctx.Err() != nil:
		return nil, false, fmt.Errorf("semantic: embed query: %w", err)
	default:
		s.log.Warn("semantic: embedding the query failed; answering from keywords only",
			"provider", s.embedder.Name(), "err", err)
		return nil, false, nil
	}
}

// queryVector returns query's vector of the embedder's model, from the
// cache when the query was embedded recently (vectors are never written
// after they are cached: stores only read a query's vector).
func (s *Searcher) queryVector(ctx context.Context, query string) ([]float32, error) {
	if v, ok := s.queries.Get(query); ok {
		return v, nil
	}
	vecs, err := s.embedder.Embed(ctx, []string{query})
	if err == nil && len(vecs) != 1 {
		err = core.NewProviderError("embed query", fmt.Errorf("%d vectors for 1 text", len(vecs)))
	}
	if err != nil {
		return nil, err
	}
	s.queries.Add(query, vecs[0])
	return vecs[0], nil
}

// fastHalf returns the n nearest notes by their fast vectors, scores mapped
// onto the embedder's scale; nil without an error when the fast tier
// failed.
func (s *Searcher) fastHalf(ctx context.Context, query string, n int) ([]core.ScoredID, error) {
	vecs, err := s.fast.Embed(ctx, []string{query})
	if err != nil || len(vecs) != 1 {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("semantic: embed query: %w", ctx.Err())
		}
		s.log.Warn("semantic: the fast tier failed to embed the query", "err", err)
		return nil, nil
	}
	hits, err := s.store.VectorSearch(ctx, s.project, NoteModel(s.fast), vecs[0], n)
	if err != nil {
		return nil, fmt.Errorf("semantic: vector search: %w", err)
	}
	if c, ok := s.fast.(interface{ Calibrate(float64) float64 }); ok {
		hybrid.Calibrate(hits, c.Calibrate)
	}
	return hits, nil
}

// DefaultFloor is search's relevance floor (WithRelevanceFloor) with the
// built-in transformer, calibrated on the eval sets (embedding/eval
// TestProseEval: the hub set's 8 questions no page answers, asked of each
// corpus, against the answered questions; docs/SEARCH.md has the figures):
// the highest of the floors tried that leaves every answered question's
// relevant hit in its top 5 (146 of 156 either way), and it empties 12 of
// the 24 unanswerable searches (their top scores 0.011–0.338, median 0.095;
// the answered questions' top scores start at 0.177).
const DefaultFloor = 0.10

// RelevanceFloor returns the relevance floor calibrated for e: the
// built-in transformer's (DefaultFloor). Other embedders have none: the
// static table's scores of unanswerable questions (0.087–0.380) overlap the
// answered questions' top scores (from 0.186), and a remote model's cosines
// are on a scale of their own, so their searches keep every hit.
func RelevanceFloor(e core.Embedder) (float64, bool) {
	if e.Name() != "builtin" || strings.Contains(e.Model(), "static") {
		return 0, false
	}
	return DefaultFloor, true
}
