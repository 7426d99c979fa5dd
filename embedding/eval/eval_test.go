// Package eval measures retrieval quality over testdata/evalvault: keyword
// only (BM25), vector only (the built-in embedder) and their fusion. It
// holds tests only; `go test -v -run TestRetrievalQuality ./embedding/eval`
// prints the table.
package eval

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding/builtin"
	"github.com/vaultgraph/vaultgraph/embedding/hybrid"
	"github.com/vaultgraph/vaultgraph/embedding/keyword"
)

const vaultDir = "../testdata/evalvault"

type query struct {
	Query    string   `json:"query"`
	Relevant []string `json:"relevant"`
	Kind     string   `json:"kind"`
}

type note struct{ id, text string }

// metrics accumulates recall@k and mean reciprocal rank over queries.
type metrics struct {
	name                 string
	n                    int
	hits1, hits5, hits10 int
	reciprocalRankSum    float64
}

func (m *metrics) add(ranking []core.ScoredID, relevant []string) {
	m.n++
	for i, hit := range ranking {
		if slices.Contains(relevant, hit.ID) {
			rank := i + 1
			if rank <= 1 {
				m.hits1++
			}
			if rank <= 5 {
				m.hits5++
			}
			if rank <= 10 {
				m.hits10++
			}
			m.reciprocalRankSum += 1 / float64(rank)
			return
		}
	}
}

func (m *metrics) recall5() float64 { return float64(m.hits5) / float64(m.n) }

func (m *metrics) String() string {
	n := float64(m.n)
	return fmt.Sprintf("%-22s recall@1 %5.1f%%  recall@5 %5.1f%%  recall@10 %5.1f%%  MRR %.3f",
		m.name, 100*float64(m.hits1)/n, 100*float64(m.hits5)/n, 100*float64(m.hits10)/n, m.reciprocalRankSum/n)
}

// TestRetrievalQuality is the acceptance test of the built-in embedder:
// fusing it with keyword search must beat keyword search alone by at least
// ten points of recall@5 on queries that paraphrase their notes.
func TestRetrievalQuality(t *testing.T) {
	notes := loadVault(t)
	queries := loadQueries(t, notes)
	require.GreaterOrEqual(t, len(notes), 80)
	require.GreaterOrEqual(t, len(queries), 60)

	emb, err := builtin.New()
	require.NoError(t, err)
	texts := make([]string, len(notes))
	index := keyword.NewIndex()
	for i, n := range notes {
		texts[i] = n.text
		index.Put(n.id, n.text)
	}
	noteVecs, err := emb.Embed(t.Context(), texts)
	require.NoError(t, err)
	queryTexts := make([]string, len(queries))
	for i, q := range queries {
		queryTexts[i] = q.Query
	}
	queryVecs, err := emb.Embed(t.Context(), queryTexts)
	require.NoError(t, err)

	methods := []string{"keyword (BM25)", "vector (builtin)", "hybrid weighted 0.7", "hybrid RRF k=60", "hybrid weighted, max-norm"}
	byKind := map[string][]*metrics{}
	var kinds []string // in order of first appearance
	for i, q := range queries {
		kwRanking := index.Search(q.Query, len(notes))
		vecRanking := rankByCosine(queryVecs[i], notes, noteVecs)
		rankings := [][]core.ScoredID{
			kwRanking,
			vecRanking,
			hybrid.Weighted(hybrid.DefaultVectorWeight, 0, vecRanking, kwRanking),
			hybrid.RRF(hybrid.DefaultRRFK, 0, vecRanking[:10], head(kwRanking, 10)),
			// As neo4jstore scores keyword hits: relative to the best one.
			hybrid.Weighted(hybrid.DefaultVectorWeight, 0, vecRanking, maxNormalized(kwRanking)),
		}
		for _, kind := range []string{"all", q.Kind} {
			if byKind[kind] == nil {
				kinds = append(kinds, kind)
				for _, name := range methods {
					byKind[kind] = append(byKind[kind], &metrics{name: name})
				}
			}
			for m, r := range rankings {
				byKind[kind][m].add(r, q.Relevant)
			}
		}
	}
	overlap := termOverlap(queries, notes)
	t.Logf("%d notes, %d queries; paraphrases: %.0f%% of their terms occur in the target note, %d share no term with it",
		len(notes), len(queries), 100*overlap.share, overlap.disjoint)
	for _, kind := range kinds {
		t.Logf("%s queries (%d):", kind, byKind[kind][0].n)
		for _, m := range byKind[kind] {
			t.Log("  ", m)
		}
	}
	for _, kind := range []string{"all", "paraphrase"} {
		kw, hy := byKind[kind][0], byKind[kind][2]
		if gain := hy.recall5() - kw.recall5(); gain < 0.10 {
			t.Errorf("%s queries: hybrid recall@5 %.1f%% beats keyword %.1f%% by %.1f points, want >= 10",
				kind, 100*hy.recall5(), 100*kw.recall5(), 100*gain)
		}
	}
}

// maxNormalized divides every score by the best one, as neo4jstore does
// with Lucene's unbounded scores.
func maxNormalized(list []core.ScoredID) []core.ScoredID {
	out := make([]core.ScoredID, len(list))
	for i, h := range list {
		out[i] = core.ScoredID{ID: h.ID, Score: h.Score / list[0].Score}
	}
	return out
}

func head(list []core.ScoredID, n int) []core.ScoredID {
	if len(list) > n {
		return list[:n]
	}
	return list
}

func rankByCosine(q []float32, notes []note, vecs [][]float32) []core.ScoredID {
	out := make([]core.ScoredID, len(notes))
	for i, v := range vecs {
		var dot float64
		for d := range v {
			dot += float64(q[d]) * float64(v[d])
		}
		out[i] = core.ScoredID{ID: notes[i].id, Score: dot}
	}
	slices.SortStableFunc(out, func(a, b core.ScoredID) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

type overlapStats struct {
	share    float64 // query terms found in the target / all query terms
	disjoint int     // queries sharing no term with their target
}

func termOverlap(queries []query, notes []note) overlapStats {
	byID := map[string]map[string]bool{}
	for _, n := range notes {
		set := map[string]bool{}
		for _, term := range keyword.Terms(n.text) {
			set[term] = true
		}
		byID[n.id] = set
	}
	var found, total int
	var stats overlapStats
	for _, q := range queries {
		if q.Kind != "paraphrase" {
			continue
		}
		shared := 0
		for _, term := range keyword.Terms(q.Query) {
			total++
			if byID[q.Relevant[0]][term] {
				shared++
			}
		}
		found += shared
		if shared == 0 {
			stats.disjoint++
		}
	}
	stats.share = float64(found) / float64(total)
	return stats
}

// loadVault reads every note of the eval vault; its ID is the path inside
// the vault and its text the file without the YAML frontmatter.
func loadVault(t testing.TB) []note {
	t.Helper()
	var notes []note
	err := filepath.WalkDir(vaultDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".md" {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(vaultDir, path)
		if err != nil {
			return err
		}
		notes = append(notes, note{id: filepath.ToSlash(rel), text: stripFrontmatter(string(raw))})
		return nil
	})
	require.NoError(t, err)
	return notes
}

func stripFrontmatter(s string) string {
	if rest, ok := strings.CutPrefix(s, "---\n"); ok {
		if _, body, ok := strings.Cut(rest, "\n---\n"); ok {
			return body
		}
	}
	return s
}

func loadQueries(t testing.TB, notes []note) []query {
	t.Helper()
	raw, err := os.ReadFile("../testdata/eval.json")
	require.NoError(t, err)
	var file struct{ Queries []query }
	require.NoError(t, json.Unmarshal(raw, &file))
	ids := map[string]bool{}
	for _, n := range notes {
		ids[n.id] = true
	}
	for _, q := range file.Queries {
		require.NotEmpty(t, q.Relevant, "query %q", q.Query)
		for _, id := range q.Relevant {
			require.True(t, ids[id], "query %q names a missing note %s", q.Query, id)
		}
	}
	return file.Queries
}
