package memory

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/vaultgraph/vaultgraph/core"
)

// Relevance of a memory to a query (memory_recall, memory_context,
// memory_forget by query, and the memories of spec 004's search): a
// weighted sum of the cosine similarity of their embeddings and the
// keyword score of the query's words in the memory (BM25 normalised to
// [0, 1], core.MemoryStore.KeywordSearchMemories), each in [0, 1]:
//
//	score = VectorWeight × cosine + (1 − VectorWeight) × keyword
//
// Vectors find paraphrases ("colour theme of the editor" for "dark mode in
// the IDE"); keywords find the exact and rare words that embeddings blur
// (names, versions, acronyms such as "CI"). The weight and the floors below
// were chosen on the labelled sets of memory/testdata (docs/MEMORY.md has
// the figures and the command that measures them again).
const (
	// VectorWeight is the share of cosine similarity in a memory's
	// relevance to a query.
	VectorWeight = 0.8
	// MatchFloor is the relevance a memory needs for memory_forget to
	// delete it by query: above every pair of the set's queries that no
	// memory answers ("kimchi recipe") with both built-in models, so a
	// query that matches nothing deletes nothing; about half of the
	// paraphrased related pairs reach it (dry_run shows the matches).
	MatchFloor = 0.40
	// ContextFloor is the relevance a memory needs to enter memory_context's
	// block for a query (golden rules need none): a loose match in a prompt
	// costs a few tokens, a missed one an answer, so it keeps 83–88 % of
	// the related pairs and lets through at most 1 % of the unrelated ones.
	ContextFloor = 0.25
	// RecallFloor is the relevance a memory needs to be recalled
	// (memory_recall, issue 49.7) with the built-in transformer (the
	// default): below every right first memory of the labelled set
	// (lowest 0.191), so hit@1 is what it was, and above 16 of the 20
	// queries no memory answers (their top scores 0.08–0.26), which get an
	// empty answer with a note rather than the least unrelated memories.
	RecallFloor = 0.17
	// StaticRecallFloor is RecallFloor for the built-in static table
	// (embedding.model: static), whose scores separate less: every right
	// first memory of the set scores 0.221 or more, a one-word query of a
	// related memory ("database" for "Project uses PostgreSQL 15") 0.132,
	// and the queries no memory answers 0.08–0.40, so the floor only
	// keeps out what is plainly unrelated (1 of those 20 queries).
	StaticRecallFloor = 0.12
)

// rank returns up to n memories f selects (n <= 0: every one with a
// vector of the current model or a keyword match), by relevance to query
// (see VectorWeight), best first, ties by ID. Every score is exact: the
// vector half's top n plus every keyword match is a superset of the true
// top n, since a memory outside both scores at most VectorWeight times the
// n-th cosine, and each candidate's missing half is computed, not assumed
// to be 0.
func (s *Service) rank(ctx context.Context, query string, f core.MemoryFilter, n int) ([]core.ScoredMemory, error) {
	v, err := s.embed(ctx, query)
	if err != nil {
		return nil, err
	}
	model := s.emb.Model()
	vec, err := s.store.SearchMemories(ctx, s.project, model, v, f, n)
	if err != nil {
		return nil, err
	}
	kw, err := s.store.KeywordSearchMemories(ctx, s.project, query, f, 0)
	if err != nil {
		return nil, err
	}
	type parts struct {
		m           core.Memory
		cos, words  float64
		cosComputed bool
	}
	byID := make(map[string]*parts, len(vec)+len(kw))
	for _, h := range vec {
		byID[h.ID] = &parts{m: h.Memory, cos: h.Score, cosComputed: true}
	}
	for _, h := range kw {
		p := byID[h.ID]
		if p == nil {
			p = &parts{m: h.Memory}
			byID[h.ID] = p
		}
		p.words = h.Score
	}
	out := make([]core.ScoredMemory, 0, len(byID))
	for _, p := range byID {
		if !p.cosComputed && p.m.Model == model {
			p.cos = core.Cosine01(v, p.m.Vector)
		}
		out = append(out, core.ScoredMemory{Memory: p.m, Score: Relevance(p.cos, p.words)})
	}
	slices.SortFunc(out, func(a, b core.ScoredMemory) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID))
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out, nil
}

// Relevance combines a cosine similarity and a keyword score, each in
// [0, 1], into a memory's relevance to a query (see VectorWeight).
func Relevance(cosine, keyword float64) float64 {
	return VectorWeight*clamp01(cosine) + (1-VectorWeight)*clamp01(keyword)
}

func clamp01(x float64) float64 { return min(max(x, 0), 1) }

// Search returns up to limit memories by relevance to query (see rank),
// of namespace ("" for any): the memories of spec 004's search, which
// covers "indexed documents and memories". Unlike Recall it records no
// access (search is read-only). A namespace no memory can have (a
// document namespace such as "docs") selects none.
func (s *Service) Search(ctx context.Context, query, namespace string, limit int) ([]core.ScoredMemory, error) {
	var f core.MemoryFilter
	if namespace != "" {
		if CheckNamespace(namespace) != nil {
			return []core.ScoredMemory{}, nil
		}
		f.Namespaces = []string{namespace}
	}
	return s.rank(ctx, query, f, max(limit, 1))
}

// Stats is what get_index_stats reports about memories.
type Stats struct {
	Count       int
	GoldenRules int      // type golden_rule or confidence >= 0.9
	Namespaces  []string // sorted
}

// Stats counts the project's memories and golden rules and lists their
// namespaces.
func (s *Service) Stats(ctx context.Context) (Stats, error) {
	all, _, err := s.store.ListMemories(ctx, s.project, core.MemoryFilter{}, core.MemoryPage{Order: core.OrderCreatedAt})
	if err != nil {
		return Stats{}, err
	}
	st := Stats{Count: len(all), Namespaces: []string{}}
	for _, m := range all {
		if IsGolden(m.Type, m.Confidence) {
			st.GoldenRules++
		}
		if !slices.Contains(st.Namespaces, m.Namespace) {
			st.Namespaces = append(st.Namespaces, m.Namespace)
		}
	}
	slices.Sort(st.Namespaces)
	return st, nil
}

// recallFloor is the floor memory_recall applies with embedder e
// (RecallFloor, StaticRecallFloor): 0 for an embedder none was calibrated
// for (a remote model's cosines are on a scale of their own) or none.
func recallFloor(e core.Embedder) float64 {
	if e == nil || e.Name() != "builtin" {
		return 0
	}
	if strings.Contains(e.Model(), "static") {
		return StaticRecallFloor
	}
	return RecallFloor
}

// RecallFloorOf is the relevance floor of memory_recall with this
// service's embedder (0: none).
func (s *Service) RecallFloorOf() float64 { return recallFloor(s.emb) }
