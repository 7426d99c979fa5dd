package docindex

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding/hybrid"
)

// DocTypeMemory is the doc_type of memories in search results.
const DocTypeMemory = "memory"

// Filter narrows a search (search_with_filters); empty fields match
// anything. SourceFile is compared after the same cleaning as index_file
// gives paths.
type Filter struct {
	Namespace  string
	DocType    string
	SourceFile string
}

// DocTypes are the values of the doc_type filter.
var DocTypes = []string{core.DocTypeDocument, DocTypeMemory}

// NormalizeFilter checks f and returns it as a search applies it: doc_type
// one of DocTypes; source_file cleaned as index_file cleans a path (a
// relative one starts at the vault) and, when it resolves inside the
// roots, the real path of the file a symbolic link names.
func (s *Service) NormalizeFilter(f Filter) (Filter, error) {
	if f.DocType != "" && !slices.Contains(DocTypes, f.DocType) {
		return f, newError(ErrInvalid, "Invalid doc_type: %s (use %s)", f.DocType, strings.Join(DocTypes, " or "))
	}
	if f.SourceFile != "" {
		abs, err := s.absolute(f.SourceFile)
		if err != nil {
			return f, err
		}
		f.SourceFile = s.realPath(abs)
	}
	return f, nil
}

// Search returns up to limit results most similar to query, best first:
// document chunks, plus memories when Memories is set and the filter
// admits them (doc_type "" or "memory", no source_file).
func (s *Service) Search(ctx context.Context, query string, f Filter, limit int) ([]Hit, error) {
	if strings.TrimSpace(query) == "" {
		return nil, newError(ErrEmptyQuery, "Query cannot be empty")
	}
	limit = min(max(limit, 1), MaxResults)
	f, err := s.NormalizeFilter(f)
	if err != nil {
		return nil, err
	}
	if err := s.reembed(ctx); err != nil {
		return nil, err
	}
	var hits []Hit
	if f.DocType == "" || f.DocType == core.DocTypeDocument {
		chunks, err := s.searchChunks(ctx, query, core.ChunkFilter{Namespace: f.Namespace, DocType: f.DocType, SourceFile: f.SourceFile}, limit)
		if err != nil {
			return nil, err
		}
		for _, c := range chunks {
			hits = append(hits, Hit{
				ID: c.ID, Content: c.Content, Score: c.Score, Namespace: c.Namespace, DocType: c.DocType,
				SourceFile: c.SourceFile, ChunkIndex: c.Index, HeaderPath: c.HeaderPath, Page: c.Page, NoteID: c.NoteID,
			})
		}
	}
	if s.cfg.Memories != nil && f.SourceFile == "" && (f.DocType == "" || f.DocType == DocTypeMemory) {
		mem, err := s.cfg.Memories.SearchMemories(ctx, query, f.Namespace, limit)
		if err != nil {
			return nil, fmt.Errorf("docindex: search memories: %w", err)
		}
		hits = append(hits, mem...)
	}
	slices.SortStableFunc(hits, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, nil
}

// VectorWeight is the share of vector similarity in a chunk's score; the
// rest is keyword relevance (hybrid.DefaultVectorWeight, the best weight on
// the retrieval evaluation of embedding/eval).
const VectorWeight = hybrid.DefaultVectorWeight

// candidates is how many chunks each half of a hybrid search fetches: more
// than the limit, so that a chunk ranked well by both halves but first by
// neither still makes the fused top.
func candidates(limit int) int { return min(max(4*limit, 20), 4*MaxResults) }

// searchChunks ranks chunks by hybrid relevance: VectorWeight × cosine
// similarity + (1 − VectorWeight) × keyword score (each in [0, 1]; a chunk
// missing from one half's candidates scores 0 there), best first, ties by
// ID. Keywords find the rare and exact words (names, identifiers) that
// embeddings blur; vectors find paraphrases.
func (s *Service) searchChunks(ctx context.Context, query string, f core.ChunkFilter, limit int) ([]core.ScoredChunk, error) {
	vs, err := s.cfg.Embedder.Embed(ctx, []string{query})
	if err != nil {
		return nil, fmt.Errorf("docindex: embed query: %w", err)
	}
	n := candidates(limit)
	best, err := s.cfg.Store.SearchChunks(ctx, s.cfg.Project, core.ChunkQuery{Vector: vs[0], Model: s.cfg.Embedder.Model(), Filter: f, Limit: n})
	if err != nil {
		return nil, fmt.Errorf("docindex: search chunks: %w", err)
	}
	byID := make(map[string]core.ScoredChunk)
	ids := func(hits []core.ScoredChunk) []core.ScoredID {
		out := make([]core.ScoredID, len(hits))
		for i, h := range hits {
			out[i] = core.ScoredID{ID: h.ID, Score: h.Score}
			byID[h.ID] = h
		}
		return out
	}
	vector := ids(best)
	if s.cfg.Fast != nil {
		fast, err := s.fastChunks(ctx, query, f, n)
		if err != nil {
			return nil, err
		}
		// The same tiers as the notes' search (semantic.Searcher).
		vector = hybrid.Tiered(n, vector, ids(fast))
	}
	keyword, err := s.cfg.Store.KeywordSearchChunks(ctx, s.cfg.Project, core.ChunkKeywordQuery{Text: query, Filter: f, Limit: n})
	if err != nil {
		return nil, fmt.Errorf("docindex: keyword search chunks: %w", err)
	}
	kw := ids(keyword)
	fused := hybrid.Weighted(VectorWeight, limit, vector, kw)
	out := make([]core.ScoredChunk, 0, len(fused))
	for _, h := range fused {
		c := byID[h.ID]
		if c.Model != s.cfg.Embedder.Model() && (s.cfg.Fast == nil || c.Model != s.cfg.Fast.Model()) {
			continue // a chunk of another model found by keywords: embedded again at the next start
		}
		c.Score = h.Score
		out = append(out, c)
	}
	return out, nil
}

// fastChunks returns the n chunks nearest query by their fast-tier
// vectors (those not upgraded yet), scores mapped onto Embedder's scale
// when the fast tier can (a Calibrate method, as the notes' searcher).
func (s *Service) fastChunks(ctx context.Context, query string, f core.ChunkFilter, n int) ([]core.ScoredChunk, error) {
	vs, err := s.cfg.Fast.Embed(ctx, []string{query})
	if err != nil {
		return nil, fmt.Errorf("docindex: embed query: %w", err)
	}
	hits, err := s.cfg.Store.SearchChunks(ctx, s.cfg.Project, core.ChunkQuery{Vector: vs[0], Model: s.cfg.Fast.Model(), Filter: f, Limit: n})
	if err != nil {
		return nil, fmt.Errorf("docindex: search chunks: %w", err)
	}
	if c, ok := s.cfg.Fast.(interface{ Calibrate(float64) float64 }); ok {
		for i := range hits {
			hits[i].Score = min(1, max(0, c.Calibrate(hits[i].Score)))
		}
	}
	return hits, nil
}

// EstimateTokens estimates how many tokens text costs a model: one per
// four characters (code points), rounded up. It is the estimate every
// token count of the document tools uses.
func EstimateTokens(text string) int {
	return (utf8.RuneCountInString(text) + 3) / 4
}

// TotalTokens sums EstimateTokens over the hits' content.
func TotalTokens(hits []Hit) int {
	n := 0
	for _, h := range hits {
		n += EstimateTokens(h.Content)
	}
	return n
}

// BudgetResult is search_with_budget's answer.
type BudgetResult struct {
	Hits            []Hit
	TokensUsed      int
	BudgetRemaining int
	Truncated       bool
	TruncatedCount  int
}

// SearchWithBudget fetches up to MaxResults candidates and returns them in
// score order while their content fits in maxTokens (EstimateTokens): it
// stops at the first candidate that does not fit, so a result is never
// preceded by a better one left out. TruncatedCount is the number of
// candidates left out.
func (s *Service) SearchWithBudget(ctx context.Context, query string, maxTokens int) (*BudgetResult, error) {
	if maxTokens < 1 {
		return nil, newError(ErrInvalid, "max_tokens must be at least 1, got %d", maxTokens)
	}
	hits, err := s.Search(ctx, query, Filter{}, MaxResults)
	if err != nil {
		return nil, err
	}
	res := &BudgetResult{Hits: []Hit{}}
	for i, h := range hits {
		t := EstimateTokens(h.Content)
		if res.TokensUsed+t > maxTokens {
			res.Truncated = true
			res.TruncatedCount = len(hits) - i
			break
		}
		res.TokensUsed += t
		res.Hits = append(res.Hits, h)
	}
	res.BudgetRemaining = maxTokens - res.TokensUsed
	return res, nil
}
