package memory

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/internal/plural"
)

// Thresholds of the analyses, on cosine similarity in [0, 1]. Similarity
// says two memories speak of the same subject; what sets them apart is read
// from their words (compare.go). The values were chosen on the labelled
// pairs of memory/testdata/analyses.json with both built-in models
// (docs/MEMORY.md, "Analyses"): unrelated pairs stayed below 0.49, the
// pairs that conflict, replace or repeat each other went down to 0.59.
const (
	// DefaultContradictionThreshold: two memories this similar whose words
	// conflict (opposite terms about the same subject, a negation of what
	// the other states, other values, or one saying it changed) are
	// reported as contradicting.
	DefaultContradictionThreshold = 0.6
	// DefaultSupersedeThreshold: a newer memory of the same type and
	// namespace this similar to an older one, whose words conflict with
	// it or say it changed, supersedes it.
	DefaultSupersedeThreshold = 0.6
	// DuplicateThreshold: at or above it, two memories whose words do not
	// conflict are near-duplicates, reported by the health analysis.
	DuplicateThreshold = 0.8
	// MaxAnalyzed bounds how many memories one pairwise analysis compares
	// (the most recently updated ones): pairs grow with its square.
	MaxAnalyzed = 2000
	// DefaultStaleDays: a memory not accessed for this long is stale.
	DefaultStaleDays = 30
	// LowConfidence: below it (under a new memory's 0.3) feedback has been
	// mostly negative.
	LowConfidence = 300
)

// Contradiction is a pair of memories that appear to disagree.
type Contradiction struct {
	A, B       core.Memory
	Similarity float64
	Reason     string
}

// analyzed returns the memories a pairwise analysis looks at: those f
// selects that have a vector of the current model, most recently updated
// first, at most MaxAnalyzed.
func (s *Service) analyzed(ctx context.Context, f core.MemoryFilter) ([]core.Memory, error) {
	if s.emb == nil {
		return nil, ErrNoEmbedder
	}
	if err := s.ensureVectors(ctx); err != nil {
		return nil, err
	}
	all, _, err := s.store.ListMemories(ctx, s.project, f, core.MemoryPage{Order: core.OrderUpdatedAt, Descending: true})
	if err != nil {
		return nil, err
	}
	model := s.emb.Model()
	out := all[:0]
	for _, m := range all {
		if m.Model == model && len(m.Vector) > 0 && len(out) < MaxAnalyzed {
			out = append(out, m)
		}
	}
	return out, nil
}

// DetectContradictions finds pairs at least threshold similar whose texts
// disagree, plus pairs already related by contradicts. With id, only
// pairs containing that memory. Ordered by similarity descending.
func (s *Service) DetectContradictions(ctx context.Context, id, namespace string, threshold float64) ([]Contradiction, int, error) {
	var f core.MemoryFilter
	if namespace != "" {
		if err := CheckNamespace(namespace); err != nil {
			return nil, 0, err
		}
		f.Namespaces = []string{namespace}
	}
	if s.emb != nil {
		if err := s.ensureVectors(ctx); err != nil {
			return nil, 0, err
		}
	}
	var focus *core.Memory
	if id != "" {
		m, err := s.Get(ctx, id)
		if err != nil {
			return nil, 0, err
		}
		focus = m
	}
	ms, err := s.analyzed(ctx, f)
	if err != nil {
		return nil, 0, err
	}
	if focus != nil && !slices.ContainsFunc(ms, func(m core.Memory) bool { return m.ID == focus.ID }) {
		ms = append(ms, *focus)
	}
	byID := map[string]core.Memory{}
	for _, m := range ms {
		byID[m.ID] = m
	}
	seen := map[[2]string]bool{}
	var out []Contradiction
	add := func(a, b core.Memory, sim float64, reason string) {
		if a.ID > b.ID {
			a, b = b, a
		}
		k := [2]string{a.ID, b.ID}
		if seen[k] {
			return
		}
		seen[k] = true
		out = append(out, Contradiction{A: a, B: b, Similarity: round4(sim), Reason: reason})
	}
	for i := range ms {
		for j := i + 1; j < len(ms); j++ {
			a, b := ms[i], ms[j]
			if focus != nil && a.ID != focus.ID && b.ID != focus.ID {
				continue
			}
			sim := core.Cosine01(a.Vector, b.Vector)
			if sim < threshold {
				continue
			}
			if reason := conflict(a.Content, b.Content); reason != "" {
				add(a, b, sim, reason)
			}
		}
	}
	ids := make([]string, 0, len(ms))
	for _, m := range ms {
		ids = append(ids, m.ID)
	}
	rels, err := s.store.MemoryRelations(ctx, s.project, ids)
	if err != nil {
		return nil, 0, err
	}
	for _, r := range rels {
		a, okA := byID[r.From]
		b, okB := byID[r.To]
		if r.Type != RelContradicts || !okA || !okB || (focus != nil && a.ID != focus.ID && b.ID != focus.ID) {
			continue
		}
		add(a, b, core.Cosine01(a.Vector, b.Vector), "marked contradicts by memory_relate")
	}
	slices.SortFunc(out, func(x, y Contradiction) int {
		return cmp.Or(cmp.Compare(y.Similarity, x.Similarity), cmp.Compare(x.A.ID, y.A.ID), cmp.Compare(x.B.ID, y.B.ID))
	})
	return out, len(ms), nil
}

// SupersedeCandidate is an older memory a newer one may replace.
type SupersedeCandidate struct {
	Memory     core.Memory
	Similarity float64
	Supersedes bool
	Reason     string
}

// CheckSupersedes tells whether the memory id supersedes target, or, with
// no target, which memories of its namespace it supersedes: a memory
// supersedes another when it was created later, has the same type (a
// golden rule counts as any type) and namespace, and is at least
// threshold similar. Candidates are the memories at least threshold
// similar (or the target), by similarity descending.
func (s *Service) CheckSupersedes(ctx context.Context, id, target string, threshold float64) (core.Memory, []SupersedeCandidate, error) {
	if s.emb == nil {
		return core.Memory{}, nil, ErrNoEmbedder
	}
	if err := s.ensureVectors(ctx); err != nil {
		return core.Memory{}, nil, err
	}
	m, err := s.Get(ctx, id) // read after ensureVectors: with the current model's vector
	if err != nil {
		return core.Memory{}, nil, err
	}
	var others []core.Memory
	if target != "" {
		if target == id {
			return core.Memory{}, nil, fail("memory_id and target_id are the same memory: %s", id)
		}
		t, err := s.Get(ctx, target)
		if err != nil {
			return core.Memory{}, nil, err
		}
		others = []core.Memory{*t}
	} else {
		ms, err := s.analyzed(ctx, core.MemoryFilter{Namespaces: []string{m.Namespace}})
		if err != nil {
			return core.Memory{}, nil, err
		}
		for _, o := range ms {
			if o.ID != id {
				others = append(others, o)
			}
		}
	}
	var out []SupersedeCandidate
	for _, o := range others {
		sim := round4(core.Cosine01(m.Vector, o.Vector))
		if target == "" && sim < threshold {
			continue
		}
		c := SupersedeCandidate{Memory: o, Similarity: sim}
		switch {
		case m.Model != o.Model || len(m.Vector) == 0 || len(o.Vector) == 0:
			c.Reason = "not comparable: the memories were embedded by different models"
		case sim < threshold:
			c.Reason = "not similar enough"
		case o.Namespace != m.Namespace:
			c.Reason = "different namespace"
		case m.Type != o.Type && m.Type != TypeGoldenRule && o.Type != TypeGoldenRule:
			c.Reason = "different memory type"
		case !m.CreatedAt.After(o.CreatedAt):
			c.Reason = "not newer than the other memory"
		default:
			// Similar is not enough: a restatement ("The project uses
			// PostgreSQL 15" after "Project uses PostgreSQL 15") replaces
			// nothing. It must state something else (another value, the
			// opposite) or say it changed.
			if r := conflict(m.Content, o.Content); r != "" {
				c.Supersedes = true
				c.Reason = "newer memory of the same type and namespace about the same subject (" + r + ")"
			} else {
				c.Reason = "similar, but it states nothing the other does not (a restatement: see memory_analyze_health's duplicates)"
			}
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b SupersedeCandidate) int {
		return cmp.Or(cmp.Compare(b.Similarity, a.Similarity), cmp.Compare(a.Memory.ID, b.Memory.ID))
	})
	return *m, out, nil
}

// Health is memory_analyze_health's answer before shaping.
type Health struct {
	Total           int
	ByType          map[string]int
	ByNamespace     map[string]int
	GoldenRules     int
	AvgConfidence   float64
	LowConfidence   []core.Memory
	Stale           []core.Memory
	Contradictions  []Contradiction
	Duplicates      []Contradiction // near-duplicate pairs, Reason empty
	Unembedded      int             // memories without a vector of the current model
	Recommendations []string
}

// HealthChecks choose the checks of memory_analyze_health (all on in
// AllHealthChecks). Contradictions also choose the near-duplicates, which
// come from the same comparison of every pair.
type HealthChecks struct {
	Contradictions, LowConfidence, Stale bool
}

// AllHealthChecks runs every check.
var AllHealthChecks = HealthChecks{Contradictions: true, LowConfidence: true, Stale: true}

// AnalyzeHealth reports the state of the memories of namespace ("" for
// all): counts, low-confidence and stale memories (not accessed for
// staleDays), contradictions and near-duplicates, and what to do. checks
// (default: all) leave some out: their lists stay empty.
func (s *Service) AnalyzeHealth(ctx context.Context, namespace string, staleDays int, checks ...HealthChecks) (Health, error) {
	c := AllHealthChecks
	if len(checks) > 0 {
		c = checks[0]
	}
	var f core.MemoryFilter
	if namespace != "" {
		if err := CheckNamespace(namespace); err != nil {
			return Health{}, err
		}
		f.Namespaces = []string{namespace}
	}
	all, _, err := s.store.ListMemories(ctx, s.project, f, core.MemoryPage{Order: core.OrderUpdatedAt, Descending: true})
	if err != nil {
		return Health{}, err
	}
	h := Health{Total: len(all), ByType: map[string]int{}, ByNamespace: map[string]int{},
		LowConfidence: []core.Memory{}, Stale: []core.Memory{}, Contradictions: []Contradiction{}, Duplicates: []Contradiction{}}
	cutoff := s.clock().Add(-time.Duration(staleDays) * 24 * time.Hour)
	sum := 0
	for _, m := range all {
		h.ByType[m.Type]++
		h.ByNamespace[m.Namespace]++
		sum += m.Confidence
		if IsGolden(m.Type, m.Confidence) {
			h.GoldenRules++
		}
		if c.LowConfidence && m.Confidence < LowConfidence {
			h.LowConfidence = append(h.LowConfidence, m)
		}
		if c.Stale && m.LastAccessed.Before(cutoff) {
			h.Stale = append(h.Stale, m)
		}
		if s.emb == nil || m.Model != s.emb.Model() || len(m.Vector) == 0 {
			h.Unembedded++
		}
	}
	if len(all) > 0 {
		h.AvgConfidence = round4(float64(sum) / float64(len(all)) / Scale)
	}
	if s.emb != nil && c.Contradictions {
		cs, _, err := s.DetectContradictions(ctx, "", namespace, DefaultContradictionThreshold)
		if err != nil {
			return Health{}, err
		}
		h.Contradictions = cs
		ms, err := s.analyzed(ctx, f)
		if err != nil {
			return Health{}, err
		}
		for i := range ms {
			for j := i + 1; j < len(ms); j++ {
				sim := core.Cosine01(ms[i].Vector, ms[j].Vector)
				if sim >= DuplicateThreshold && conflict(ms[i].Content, ms[j].Content) == "" {
					a, b := ms[i], ms[j]
					if a.ID > b.ID {
						a, b = b, a
					}
					h.Duplicates = append(h.Duplicates, Contradiction{A: a, B: b, Similarity: round4(sim)})
				}
			}
		}
	}
	h.Recommendations = recommendations(h, staleDays, s.emb != nil)
	return h, nil
}

func recommendations(h Health, staleDays int, semantic bool) []string {
	var r []string
	if h.Total == 0 {
		return []string{"No memories yet: store preferences, decisions and patterns with memory_store."}
	}
	if n := len(h.Contradictions); n > 0 {
		r = append(r, plural.Count(n, "contradicting pair")+" found: review them with memory_detect_contradictions, then memory_forget the wrong one or memory_relate the newer one with supersedes.")
	}
	if n := len(h.LowConfidence); n > 0 {
		r = append(r, plural.Count(n, "memory")+" below confidence 0.3 (more unhelpful than helpful feedback): review and memory_forget those that are wrong.")
	}
	if n := len(h.Stale); n > 0 {
		r = append(r, plural.Count(n, "memory")+" not accessed in "+plural.Count(staleDays, "day")+": forget those that no longer apply.")
	}
	if n := len(h.Duplicates); n > 0 {
		r = append(r, plural.Count(n, "near-duplicate pair")+" found: keep one memory of each pair.")
	}
	if h.GoldenRules == 0 {
		r = append(r, "No golden rules yet: validate helpful memories with memory_validate; at confidence 0.9 they become golden rules.")
	}
	if !semantic {
		r = append(r, "Semantic search is off (embedding.provider none): contradictions and duplicates were not checked.")
	} else if h.Unembedded > 0 {
		r = append(r, plural.Count(h.Unembedded, "memory")+" have no vector of the current embedding model and are invisible to recall.")
	}
	if len(r) == 0 {
		r = append(r, "Memory is healthy: nothing to do.")
	}
	return r
}
