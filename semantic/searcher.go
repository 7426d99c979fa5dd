package semantic

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

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
type Searcher struct {
	project  string
	store    core.SearchStore
	embedder core.Embedder
	weight   float64
	log      *slog.Logger
}

// NewSearcher returns a Searcher over project's notes in store; logger
// (nil: discarded) hears about embedding failures.
func NewSearcher(project string, store core.SearchStore, embedder core.Embedder, logger *slog.Logger) (*Searcher, error) {
	if project == "" || store == nil || embedder == nil {
		return nil, errors.New("semantic: searcher needs a project, a store and an embedder")
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Searcher{project: project, store: store, embedder: embedder, weight: hybrid.DefaultVectorWeight, log: logger}, nil
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
	vector, err := s.vectorHalf(ctx, query, n)
	kw := <-keywordDone
	if err != nil {
		return nil, err
	}
	if kw.err != nil {
		return nil, fmt.Errorf("semantic: keyword search: %w", kw.err)
	}
	fused := hybrid.Weighted(s.weight, limit, vector, kw.hits)
	out := fused[:0]
	for _, h := range fused {
		if h.Score > 0 {
			out = append(out, h)
		}
	}
	return out, nil
}

// vectorHalf embeds query and returns its n nearest notes; nil without an
// error when the embedder failed (the search goes on with keywords).
func (s *Searcher) vectorHalf(ctx context.Context, query string, n int) ([]core.ScoredID, error) {
	vecs, err := s.embedder.Embed(ctx, []string{query})
	if err == nil && len(vecs) != 1 {
		err = core.NewProviderError("embed query", fmt.Errorf("%d vectors for 1 text", len(vecs)))
	}
	switch {
	case err == nil:
		hits, err := s.store.VectorSearch(ctx, s.project, s.embedder.Model(), vecs[0], n)
		if err != nil {
			return nil, fmt.Errorf("semantic: vector search: %w", err)
		}
		return hits, nil
	case ctx.Err() != nil:
		return nil, fmt.Errorf("semantic: embed query: %w", err)
	default:
		s.log.Warn("semantic: embedding the query failed; answering from keywords only",
			"provider", s.embedder.Name(), "err", err)
		return nil, nil
	}
}
