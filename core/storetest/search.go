package storetest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

// Models used by the search cases: two of the same dimension, so that only
// the recorded model keeps their vectors apart.
const (
	modelA = "test-model-a"
	modelB = "test-model-b"
)

func (e *env) stale(project, model string) []string {
	e.t.Helper()
	st, err := e.store.StaleVectors(e.ctx, project, model)
	require.NoError(e.t, err, "stale vectors")
	ids := make([]string, len(st))
	for i, s := range st {
		ids[i] = s.ID
	}
	return ids
}

func (e *env) setVectors(project, model string, vecs ...core.NoteVector) {
	e.t.Helper()
	require.NoError(e.t, e.store.SetNoteVectors(e.ctx, project, model, vecs), "set note vectors")
}

func (e *env) vectorSearch(project, model string, q []float32, limit int) []core.ScoredID {
	e.t.Helper()
	hits, err := e.store.VectorSearch(e.ctx, project, model, q, limit)
	require.NoError(e.t, err, "vector search")
	for _, h := range hits {
		require.True(e.t, h.Score >= 0 && h.Score <= 1, "score %v of %s outside [0, 1]", h.Score, h.ID)
	}
	return hits
}

func (e *env) keywordSearch(project, query string, limit int) []core.ScoredID {
	e.t.Helper()
	hits, err := e.store.KeywordSearch(e.ctx, project, query, limit)
	require.NoError(e.t, err, "keyword search %q", query)
	for i, h := range hits {
		require.True(e.t, h.Score > 0 && h.Score <= 1, "score %v of %s outside (0, 1]", h.Score, h.ID)
		if i > 0 {
			require.LessOrEqual(e.t, h.Score, hits[i-1].Score, "keyword hits best first")
		}
	}
	return hits
}

func scoredIDs(hits []core.ScoredID) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

// vec returns a vector of the given values (the stores normalise it).
func vec(xs ...float32) []float32 { return xs }

// noteVec pairs a note with a vector, recording the note's hash.
func noteVec(n core.Note, v []float32) core.NoteVector {
	return core.NoteVector{ID: n.ID, Hash: n.Hash, Vector: v}
}

// randomVectors returns n seeded random vectors of dim dimensions with
// components in [-1, 1): many near-ties, so ordering bugs show.
func randomVectors(seed uint64, n, dim int) [][]float32 {
	r := rand.New(rand.NewPCG(seed, seed+1))
	out := make([][]float32, n)
	for i := range out {
		v := make([]float32, dim)
		for d := range v {
			v[d] = r.Float32()*2 - 1
		}
		out[i] = v
	}
	return out
}

// ExactTopK is the reference answer of VectorSearch: cosine similarity of
// q with every vector, computed in float64, best first, ties by ID, scores
// clamped to [0, 1]. Tests of stores compare their answers with it.
func ExactTopK(ids []string, vectors [][]float32, q []float32, k int) []core.ScoredID {
	norm := func(v []float32) float64 {
		var s float64
		for _, x := range v {
			s += float64(x) * float64(x)
		}
		return math.Sqrt(s)
	}
	qn := norm(q)
	out := make([]core.ScoredID, 0, len(ids))
	for i, v := range vectors {
		vn := norm(v)
		if vn == 0 || qn == 0 {
			continue
		}
		var d float64
		for j := range v {
			d += float64(v[j]) * float64(q[j])
		}
		out = append(out, core.ScoredID{ID: ids[i], Score: min(1, max(0, d/(qn*vn)))})
	}
	slices.SortFunc(out, func(a, b core.ScoredID) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	if len(out) > k {
		out = out[:k]
	}
	return out
}

// SameRanking checks that got matches want: equal scores within tol, and
// the same IDs in the same order except where scores are within tol of
// each other (float32 arithmetic may order near-ties either way).
func SameRanking(t require.TestingT, want, got []core.ScoredID, tol float64) {
	require.Len(t, got, len(want), "result count")
	for i := range want {
		require.InDelta(t, want[i].Score, got[i].Score, tol, "score of rank %d (%s vs %s)", i+1, want[i].ID, got[i].ID)
		if want[i].ID == got[i].ID {
			continue
		}
		// A swap is acceptable only between near-equal scores.
		j := slices.IndexFunc(want, func(s core.ScoredID) bool { return s.ID == got[i].ID })
		if j < 0 {
			// got[i] may be a near-tie just outside want's cut.
			require.InDelta(t, want[len(want)-1].Score, got[i].Score, tol, "rank %d: %s is not in the reference answer", i+1, got[i].ID)
			continue
		}
		require.InDelta(t, want[i].Score, want[j].Score, tol, "rank %d: %s instead of %s", i+1, got[i].ID, want[i].ID)
	}
}

var searchCases = []testCase{
	{"every note is stale until it has a vector of the model", func(e *env) {
		p := e.project()
		e.upsert(p, mkNote("b.md"), mkNote("a.md"), mkNote("c.md"))
		assert.Equal(e.t, []string{"a.md", "b.md", "c.md"}, e.stale(p, modelA))
		st, err := e.store.StaleVectors(e.ctx, p, modelA)
		require.NoError(e.t, err)
		assert.Equal(e.t, core.StaleNote{ID: "a.md", Hash: "hash-a.md"}, st[0])

		e.setVectors(p, modelA, noteVec(mkNote("a.md"), vec(1, 0, 0)), noteVec(mkNote("c.md"), vec(0, 1, 0)))
		assert.Equal(e.t, []string{"b.md"}, e.stale(p, modelA))
		assert.Equal(e.t, []string{"a.md", "b.md", "c.md"}, e.stale(p, modelB), "another model's vectors do not count")
		assert.Empty(e.t, e.stale(e.project(), modelA), "an empty project has nothing stale")
	}},
	{"a vector computed from older content leaves the note stale", func(e *env) {
		p := e.project()
		a := mkNote("a.md")
		e.upsert(p, a)
		old := noteVec(a, vec(1, 0, 0))
		old.Hash = "hash-before"
		e.setVectors(p, modelA, old)
		assert.Equal(e.t, []string{"a.md"}, e.stale(p, modelA))

		e.setVectors(p, modelA, noteVec(a, vec(1, 0, 0)))
		assert.Empty(e.t, e.stale(p, modelA))
		changed := a
		changed.Content, changed.Hash = "new content", "hash-after"
		e.upsert(p, changed)
		assert.Equal(e.t, []string{"a.md"}, e.stale(p, modelA), "new content, stale again")
		assert.Equal(e.t, []string{"a.md"}, scoredIDs(e.vectorSearch(p, modelA, vec(1, 0, 0), 5)),
			"the old vector still answers until it is replaced")
	}},
	{"vector search ranks by cosine, best first, ties by id", func(e *env) {
		p := e.project()
		notes := []core.Note{mkNote("a.md"), mkNote("b.md"), mkNote("c.md"), mkNote("d.md"), mkNote("e.md")}
		e.upsert(p, notes...)
		e.setVectors(p, modelA,
			noteVec(notes[0], vec(1, 0, 0)),
			noteVec(notes[1], vec(0, 2, 0)),   // orthogonal to the query: cosine 0
			noteVec(notes[2], vec(3, 3, 0)),   // cosine 0.707, length does not matter
			noteVec(notes[3], vec(-1, 0, 0)),  // opposite: cosine -1, clamped to 0
			noteVec(notes[4], vec(10, 10, 0)), // same direction as c: a tie, by id
		)
		hits := e.vectorSearch(p, modelA, vec(2, 0, 0), 10)
		require.Len(e.t, hits, 5)
		assert.Equal(e.t, []string{"a.md", "c.md", "e.md", "b.md", "d.md"}, scoredIDs(hits))
		assert.InDelta(e.t, 1, hits[0].Score, 1e-4)
		assert.InDelta(e.t, math.Sqrt2/2, hits[1].Score, 1e-4)
		assert.InDelta(e.t, math.Sqrt2/2, hits[2].Score, 1e-4)
		assert.InDelta(e.t, 0, hits[3].Score, 1e-4)
		assert.InDelta(e.t, 0, hits[4].Score, 1e-4)

		assert.Equal(e.t, []string{"a.md", "c.md"}, scoredIDs(e.vectorSearch(p, modelA, vec(2, 0, 0), 2)), "limit")
		assert.Empty(e.t, e.vectorSearch(p, modelB, vec(1, 0, 0), 10), "only the model's own vectors")
		assert.Empty(e.t, e.vectorSearch(p, modelA, vec(0, 0, 0), 10), "a zero query matches nothing")
		assert.Empty(e.t, e.vectorSearch(p, modelA, vec(1, 0), 10), "a query of another dimension matches nothing")
		assert.Empty(e.t, e.vectorSearch(e.project(), modelA, vec(1, 0, 0), 10), "an empty project")
	}},
	{"a re-embedded note is found by its new vector only", func(e *env) {
		p := e.project()
		a, b := mkNote("a.md"), mkNote("b.md")
		e.upsert(p, a, b)
		e.setVectors(p, modelA, noteVec(a, vec(1, 0)), noteVec(b, vec(0, 1)))
		e.setVectors(p, modelA, noteVec(a, vec(0, 1)))
		hits := e.vectorSearch(p, modelA, vec(0, 1), 10)
		require.Len(e.t, hits, 2, "a note has one vector per store, not one per write")
		assert.InDelta(e.t, 1, hits[0].Score, 1e-4)
		assert.InDelta(e.t, 1, hits[1].Score, 1e-4)

		// Switching model: a note re-embedded by modelB leaves modelA's search.
		e.setVectors(p, modelB, noteVec(a, vec(1, 0)))
		assert.Equal(e.t, []string{"b.md"}, scoredIDs(e.vectorSearch(p, modelA, vec(0, 1), 10)))
		assert.Equal(e.t, []string{"a.md"}, scoredIDs(e.vectorSearch(p, modelB, vec(1, 0), 10)))
		assert.Equal(e.t, []string{"b.md"}, e.stale(p, modelB))
	}},
	{"an empty or zero vector records the note without making it searchable", func(e *env) {
		p := e.project()
		a, b, c := mkNote("a.md"), mkNote("b.md"), mkNote("c.md")
		e.upsert(p, a, b, c)
		e.setVectors(p, modelA, noteVec(a, nil), noteVec(b, vec(0, 0, 0)), noteVec(c, vec(0, 0, 1)))
		assert.Empty(e.t, e.stale(p, modelA))
		assert.Equal(e.t, []string{"c.md"}, scoredIDs(e.vectorSearch(p, modelA, vec(1, 1, 1), 10)))
	}},
	{"vectors of unknown notes are ignored and mixed lengths are refused", func(e *env) {
		p := e.project()
		a, b := mkNote("a.md"), mkNote("b.md")
		e.upsert(p, a, b)
		e.setVectors(p, modelA, core.NoteVector{ID: "ghost.md", Hash: "h", Vector: vec(1, 0)})
		assert.Empty(e.t, e.vectorSearch(p, modelA, vec(1, 0), 10))

		err := e.store.SetNoteVectors(e.ctx, p, modelA, []core.NoteVector{noteVec(a, vec(1, 0)), noteVec(b, vec(1, 0, 0))})
		require.ErrorIs(e.t, err, core.ErrInvalidArgument)
		assert.Equal(e.t, []string{"a.md", "b.md"}, e.stale(p, modelA), "a refused batch writes nothing")
	}},
	{"a deleted note takes its vector with it", func(e *env) {
		p := e.project()
		a, b := mkNote("a.md"), mkNote("b.md")
		e.upsert(p, a, b)
		e.setVectors(p, modelA, noteVec(a, vec(1, 0)), noteVec(b, vec(0.9, 0.1)))
		e.delete(p, "a.md")
		assert.Equal(e.t, []string{"b.md"}, scoredIDs(e.vectorSearch(p, modelA, vec(1, 0), 10)))
		e.upsert(p, a)
		assert.Equal(e.t, []string{"a.md"}, e.stale(p, modelA), "a note written again starts without a vector")
		assert.Equal(e.t, []string{"b.md"}, scoredIDs(e.vectorSearch(p, modelA, vec(1, 0), 10)))
	}},
	{"vectors of two projects never mix", func(e *env) {
		one, two := e.project(), e.project()
		a := mkNote("a.md")
		e.upsert(one, a)
		e.upsert(two, a, mkNote("b.md"))
		e.setVectors(one, modelA, noteVec(a, vec(1, 0)))
		assert.Equal(e.t, []string{"a.md", "b.md"}, e.stale(two, modelA))
		assert.Empty(e.t, e.vectorSearch(two, modelA, vec(1, 0), 10))
		assert.Len(e.t, e.vectorSearch(one, modelA, vec(1, 0), 10), 1)
	}},
	{"vector search returns the exact top results of random vectors", func(e *env) {
		p := e.project()
		const n, dim, k = 300, 24, 15
		vecs := randomVectors(7, n, dim)
		ids := make([]string, n)
		notes := make([]core.Note, n)
		nvs := make([]core.NoteVector, n)
		for i := range notes {
			ids[i] = fmt.Sprintf("n%03d.md", i)
			notes[i] = mkNote(ids[i])
			nvs[i] = noteVec(notes[i], vecs[i])
		}
		e.upsert(p, notes...)
		e.setVectors(p, modelA, nvs...)
		for _, q := range randomVectors(99, 10, dim) {
			want := ExactTopK(ids, vecs, q, k)
			got := e.vectorSearch(p, modelA, q, k)
			SameRanking(e.t, want, got, 1e-4)
		}
	}},
	{"keyword search finds rare words in titles and content", func(e *env) {
		p := e.project()
		notes := []core.Note{mkNote("alpha.md"), mkNote("beta.md"), mkNote("gamma.md"), mkNote("delta.md")}
		notes[0].Title, notes[0].Content = "Zettelkasten method", "Index cards and links between them."
		notes[1].Title, notes[1].Content = "Cooking", "Bake bread with sourdough starter and flour."
		notes[2].Title, notes[2].Content = "Graph databases", "Neo4j stores nodes and relationships; Cypher queries them."
		notes[3].Title, notes[3].Content = "Misc", "Some notes about links, graphs and cards."
		e.upsert(p, notes...)

		hits := e.keywordSearch(p, "zettelkasten", 10)
		require.NotEmpty(e.t, hits)
		assert.Equal(e.t, "alpha.md", hits[0].ID, "a word of the title")
		hits = e.keywordSearch(p, "sourdough bread", 10)
		require.NotEmpty(e.t, hits)
		assert.Equal(e.t, "beta.md", hits[0].ID, "words of the content")
		hits = e.keywordSearch(p, "Cypher", 10)
		require.NotEmpty(e.t, hits)
		assert.Equal(e.t, "gamma.md", hits[0].ID, "case does not matter")
		assert.Len(e.t, e.keywordSearch(p, "links cards graph neo4j bread", 2), 2, "limit")
		assert.Empty(e.t, e.keywordSearch(p, "xylophone", 10))
		assert.Empty(e.t, e.keywordSearch(p, "   ", 10))
		assert.Empty(e.t, e.keywordSearch(e.project(), "zettelkasten", 10), "another project")

		e.delete(p, "alpha.md")
		assert.Empty(e.t, e.keywordSearch(p, "zettelkasten", 10), "a deleted note is not found")
		notes[1].Content, notes[1].Hash = "Now about zettelkasten too.", "hash-beta-2"
		e.upsert(p, notes[1])
		assert.Equal(e.t, []string{"beta.md"}, scoredIDs(e.keywordSearch(p, "zettelkasten", 10)), "changed content is found")
		assert.Empty(e.t, e.keywordSearch(p, "sourdough", 10), "old content is forgotten")
	}},
	{"keyword queries are plain text, never query syntax", func(e *env) {
		p := e.project()
		a, b := mkNote("a.md"), mkNote("b.md")
		a.Title, a.Content = "C++ templates", "Generic code: title:secret AND (nested OR groups)"
		b.Title, b.Content = "Other", "Nothing to see."
		e.upsert(p, a, b)
		for _, q := range []string{
			`title:templates`, `templates AND`, `(templates`, `templates)`, `"templates`, `templates~`,
			`templates^2`, `temp*`, `te?plates`, `[a TO z]`, `{a TO z}`, `templates\`, `-templates`, `+templates`,
			`!templates`, `templates && generic`, `templates || generic`, `/templ.*/`, `NOT templates`, `*`, `?`, `\`,
			`"`, `:`, `AND`, `OR NOT`, "templates\x00", `c++`, `templates: generic`,
		} {
			hits, err := e.store.KeywordSearch(e.ctx, p, q, 10)
			require.NoError(e.t, err, "query %q", q)
			for _, h := range hits {
				assert.True(e.t, h.Score > 0 && h.Score <= 1, "query %q: score %v", q, h.Score)
			}
			if strings.Contains(strings.ToLower(q), "templates") {
				require.NotEmpty(e.t, hits, "query %q finds the word it holds", q)
				assert.Equal(e.t, "a.md", hits[0].ID, "query %q", q)
			}
		}
		assert.Empty(e.t, e.keywordSearch(p, "temp*", 10), "a wildcard is not a wildcard")
	}},
}
