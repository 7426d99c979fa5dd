package storetest

import (
	"math"
	"slices"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

// Chunk contract (core.ChunkStore), pinned here:
//   - Scores are the cosine clamped to [0, 1]; both stores agree within
//     1e-5 (Neo4j computes in float64 from the stored float32 values).
//   - Stores return chunks without vectors, IndexedAt at millisecond
//     precision in UTC.
//   - Chunks never touch notes: clearing chunks leaves the graph alone.

const testModel = "test-model-v1"

// unit returns the 4-d unit vector at angle deg in the first plane, so
// cosines between test vectors are known exactly.
func unit(deg float64) []float32 {
	r := deg * math.Pi / 180
	return []float32{float32(math.Cos(r)), float32(math.Sin(r)), 0, 0}
}

var chunkTime = time.Date(2025, 1, 2, 3, 4, 5, 678_000_000, time.UTC)

func mkChunk(file, id string, idx int, deg float64) core.Chunk {
	return core.Chunk{
		ID: id, SourceFile: file, Namespace: "default", DocType: core.DocTypeDocument,
		Index: idx, Content: "content of " + id, HeaderPath: "A > B", Page: 0,
		FileHash: "hash-" + file, Model: testModel, Vector: unit(deg), IndexedAt: chunkTime,
	}
}

func (e *env) replace(project, file string, chunks ...core.Chunk) int {
	e.t.Helper()
	n, err := e.store.ReplaceFileChunks(e.ctx, project, file, chunks)
	require.NoError(e.t, err, "replace chunks of %s", file)
	return n
}

func (e *env) searchChunks(project string, q core.ChunkQuery) []core.ScoredChunk {
	e.t.Helper()
	hits, err := e.store.SearchChunks(e.ctx, project, q)
	require.NoError(e.t, err, "search chunks")
	return hits
}

func hitIDs(hits []core.ScoredChunk) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

var chunkCases = []testCase{
	{"chunks of a file are written, described and replaced", func(e *env) {
		p := e.project()
		assert.Equal(e.t, 0, e.replace(p, "/d/a.md", mkChunk("/d/a.md", "a2", 1, 10), mkChunk("/d/a.md", "a1", 0, 0)))
		f, err := e.store.ChunkFile(e.ctx, p, "/d/a.md")
		require.NoError(e.t, err)
		assert.Equal(e.t, core.ChunkFile{SourceFile: "/d/a.md", FileHash: "hash-/d/a.md", Namespace: "default", IDs: []string{"a1", "a2"}}, *f)

		c := mkChunk("/d/a.md", "a3", 0, 20)
		c.FileHash = "new"
		assert.Equal(e.t, 2, e.replace(p, "/d/a.md", c), "the old chunks are counted as removed")
		hits := e.searchChunks(p, core.ChunkQuery{Vector: unit(0), Model: testModel, Limit: 10})
		assert.Equal(e.t, []string{"a3"}, hitIDs(hits), "old chunks are gone")
		f, err = e.store.ChunkFile(e.ctx, p, "/d/a.md")
		require.NoError(e.t, err)
		assert.Equal(e.t, "new", f.FileHash)
		assert.Equal(e.t, []string{"a3"}, f.IDs)

		_, err = e.store.ChunkFile(e.ctx, p, "/d/missing.md")
		assert.ErrorIs(e.t, err, core.ErrNotFound)
	}},
	{"a chunk comes back as written, without its vector", func(e *env) {
		p := e.project()
		c := mkChunk("/d/p.pdf", "p1", 3, 0)
		c.Page, c.NoteID, c.HeaderPath, c.Namespace = 7, "notes/p.md", "", "project:x"
		e.replace(p, "/d/p.pdf", c)
		hits := e.searchChunks(p, core.ChunkQuery{Vector: unit(0), Model: testModel, Limit: 1})
		require.Len(e.t, hits, 1)
		got := hits[0].Chunk
		assert.InDelta(e.t, 1.0, hits[0].Score, 1e-5)
		assert.Nil(e.t, got.Vector)
		assert.True(e.t, chunkTime.Equal(got.IndexedAt), "indexed at %s", got.IndexedAt)
		got.Vector, got.IndexedAt = c.Vector, c.IndexedAt
		assert.Equal(e.t, c, got)
	}},
	{"search ranks by cosine, then ID, and honours the limit", func(e *env) {
		p := e.project()
		e.replace(p, "/d/a.md",
			mkChunk("/d/a.md", "far", 0, 80), mkChunk("/d/a.md", "near", 1, 10),
			mkChunk("/d/a.md", "tie-b", 2, 30), mkChunk("/d/a.md", "tie-a", 3, -30),
			mkChunk("/d/a.md", "opposite", 4, 180))
		hits := e.searchChunks(p, core.ChunkQuery{Vector: unit(0), Model: testModel, Limit: 10})
		assert.Equal(e.t, []string{"near", "tie-a", "tie-b", "far", "opposite"}, hitIDs(hits))
		want := []float64{math.Cos(10 * math.Pi / 180), math.Cos(30 * math.Pi / 180), math.Cos(30 * math.Pi / 180), math.Cos(80 * math.Pi / 180), 0}
		for i, h := range hits {
			assert.InDelta(e.t, want[i], h.Score, 1e-5, h.ID)
		}
		hits = e.searchChunks(p, core.ChunkQuery{Vector: unit(0), Model: testModel, Limit: 2})
		assert.Equal(e.t, []string{"near", "tie-a"}, hitIDs(hits))
	}},
	{"search honours every filter and never compares two models", func(e *env) {
		p := e.project()
		a := mkChunk("/d/a.md", "a", 0, 0)
		b := mkChunk("/d/b.md", "b", 0, 5)
		b.Namespace = "docs"
		c := mkChunk("/d/c.md", "c", 0, 10)
		c.DocType = "other"
		old := mkChunk("/d/old.md", "old", 0, 0)
		old.Model = "old-model"
		for _, x := range []core.Chunk{a, b, c, old} {
			e.replace(p, x.SourceFile, x)
		}
		q := func(f core.ChunkFilter) []string {
			return hitIDs(e.searchChunks(p, core.ChunkQuery{Vector: unit(0), Model: testModel, Filter: f, Limit: 10}))
		}
		assert.Equal(e.t, []string{"a", "b", "c"}, q(core.ChunkFilter{}))
		assert.Equal(e.t, []string{"b"}, q(core.ChunkFilter{Namespace: "docs"}))
		assert.Equal(e.t, []string{"a", "b"}, q(core.ChunkFilter{DocType: core.DocTypeDocument}))
		assert.Equal(e.t, []string{"c"}, q(core.ChunkFilter{SourceFile: "/d/c.md"}))
		assert.Empty(e.t, q(core.ChunkFilter{Namespace: "docs", SourceFile: "/d/a.md"}))
		assert.Equal(e.t, []string{"old"}, hitIDs(e.searchChunks(p, core.ChunkQuery{Vector: unit(0), Model: "old-model", Limit: 10})))
		assert.Empty(e.t, e.searchChunks(e.project(), core.ChunkQuery{Vector: unit(0), Model: testModel, Limit: 10}), "other projects see nothing")
	}},
	{"chunks are deleted by ID, by file and all at once, notes stay", func(e *env) {
		p := e.project()
		e.upsert(p, mkNote("n.md"))
		e.replace(p, "/d/a.md", mkChunk("/d/a.md", "a1", 0, 0), mkChunk("/d/a.md", "a2", 1, 0))
		e.replace(p, "/d/b.md", mkChunk("/d/b.md", "b1", 0, 0), mkChunk("/d/b.md", "b2", 1, 0), mkChunk("/d/b.md", "b3", 2, 0))
		e.replace(p, "/d/c.md", mkChunk("/d/c.md", "c1", 0, 0))

		got, err := e.store.DeleteChunks(e.ctx, p, []string{"b2", "nope", "a1", "b2"})
		require.NoError(e.t, err)
		assert.Equal(e.t, []string{"b2", "a1"}, got, "existing IDs in the order asked, once")
		got, err = e.store.DeleteChunks(e.ctx, p, []string{"b2"})
		require.NoError(e.t, err)
		assert.Empty(e.t, got)

		n, err := e.store.DeleteFileChunks(e.ctx, p, "/d/b.md")
		require.NoError(e.t, err)
		assert.Equal(e.t, 2, n)
		n, err = e.store.DeleteFileChunks(e.ctx, p, "/d/b.md")
		require.NoError(e.t, err)
		assert.Equal(e.t, 0, n)

		other := e.project()
		e.replace(other, "/d/a.md", mkChunk("/d/a.md", "a1", 0, 0))
		n, err = e.store.ClearChunks(e.ctx, p)
		require.NoError(e.t, err)
		assert.Equal(e.t, 2, n, "a2 and c1 were left")
		st, err := e.store.ChunkStats(e.ctx, p)
		require.NoError(e.t, err)
		assert.Equal(e.t, 0, st.Chunks)
		assert.Equal(e.t, 1, e.count(p), "notes are not chunks")
		st, err = e.store.ChunkStats(e.ctx, other)
		require.NoError(e.t, err)
		assert.Equal(e.t, 1, st.Chunks, "other projects keep their chunks")
	}},
	{"stats list sources and namespaces sorted", func(e *env) {
		p := e.project()
		b := mkChunk("/d/b.md", "b1", 0, 0)
		b.Namespace = "project:x"
		e.replace(p, "/d/b.md", b, mkChunk("/d/b.md", "b2", 1, 0))
		e.replace(p, "/d/a.md", mkChunk("/d/a.md", "a1", 0, 0))
		st, err := e.store.ChunkStats(e.ctx, p)
		require.NoError(e.t, err)
		assert.Equal(e.t, core.ChunkStats{Chunks: 3, Sources: []string{"/d/a.md", "/d/b.md"}, Namespaces: []string{"default", "project:x"}}, st)
		st, err = e.store.ChunkStats(e.ctx, e.project())
		require.NoError(e.t, err)
		assert.Equal(e.t, 0, st.Chunks)
		assert.Empty(e.t, st.Sources)
	}},
	{"chunks of another model are found and embedded again", func(e *env) {
		p := e.project()
		old := mkChunk("/d/a.md", "a1", 0, 0)
		old.Model = "old-model"
		old2 := mkChunk("/d/a.md", "a2", 1, 0)
		old2.Model = "old-model"
		e.replace(p, "/d/a.md", old, old2)
		e.replace(p, "/d/b.md", mkChunk("/d/b.md", "b1", 0, 0))
		stale, err := e.store.StaleChunks(e.ctx, p, testModel, 1)
		require.NoError(e.t, err)
		require.Len(e.t, stale, 1)
		assert.Equal(e.t, "a1", stale[0].ID)
		assert.Equal(e.t, "content of a1", stale[0].Content)
		require.NoError(e.t, e.store.SetChunkVectors(e.ctx, p, testModel, map[string][]float32{"a1": unit(90), "a2": unit(0), "ghost": unit(0)}))
		stale, err = e.store.StaleChunks(e.ctx, p, testModel, 10)
		require.NoError(e.t, err)
		assert.Empty(e.t, stale)
		hits := e.searchChunks(p, core.ChunkQuery{Vector: unit(0), Model: testModel, Limit: 10})
		ids := hitIDs(hits)
		assert.Equal(e.t, "a1", ids[len(ids)-1], "a1's new vector is orthogonal")
		assert.ElementsMatch(e.t, []string{"a1", "a2", "b1"}, ids)
	}},
	{"keyword search finds exact words in content and header paths", func(e *env) {
		p := e.project()
		mk := func(file, id, header, content string) core.Chunk {
			c := mkChunk(file, id, 0, 0)
			c.HeaderPath, c.Content = header, content
			return c
		}
		kim1 := mk("/d/food.md", "kim1", "Food", "kimchi fermentation takes a week in a cool place")
		kim2 := mk("/d/food2.md", "kim2", "Food", "kimchi with rice; kimchi again")
		kim2.Namespace = "recipes"
		bread := mk("/d/bread.md", "bread", "Baking", "bread needs flour water salt and yeast")
		zk := mk("/d/zk.md", "zk", "Zettelkasten > Method", "small linked cards")
		for _, c := range []core.Chunk{kim1, kim2, bread, zk} {
			e.replace(p, c.SourceFile, c)
		}
		kw := func(text string, f core.ChunkFilter, limit int) []core.ScoredChunk {
			hits, err := e.store.KeywordSearchChunks(e.ctx, p, core.ChunkKeywordQuery{Text: text, Filter: f, Limit: limit})
			require.NoError(e.t, err, "keyword search %q", text)
			for i, h := range hits {
				assert.Nil(e.t, h.Vector)
				assert.True(e.t, h.Score > 0 && h.Score <= 1+1e-9, "score %v", h.Score)
				if i > 0 {
					assert.GreaterOrEqual(e.t, hits[i-1].Score, h.Score)
				}
			}
			return hits
		}
		assert.ElementsMatch(e.t, []string{"kim1", "kim2"}, hitIDs(kw("Kimchi", core.ChunkFilter{}, 10)))
		assert.Equal(e.t, []string{"zk"}, hitIDs(kw("zettelkasten", core.ChunkFilter{}, 10)), "header paths count")
		assert.Equal(e.t, []string{"kim2"}, hitIDs(kw("kimchi", core.ChunkFilter{Namespace: "recipes"}, 10)))
		assert.Equal(e.t, []string{"kim1"}, hitIDs(kw("kimchi", core.ChunkFilter{SourceFile: "/d/food.md"}, 10)))
		assert.Empty(e.t, kw("kimchi", core.ChunkFilter{DocType: "other"}, 10))
		assert.Len(e.t, kw("kimchi", core.ChunkFilter{}, 1), 1)
		assert.Empty(e.t, kw("!!! ...", core.ChunkFilter{}, 10), "no words, no hits")
		assert.ElementsMatch(e.t, []string{"kim1", "kim2"}, hitIDs(kw(`kimchi" *:* (AND) \`, core.ChunkFilter{}, 10)), "query syntax is data")
		other, err := e.store.KeywordSearchChunks(e.ctx, e.project(), core.ChunkKeywordQuery{Text: "kimchi", Limit: 10})
		require.NoError(e.t, err)
		assert.Empty(e.t, other, "other projects see nothing")

		// Replaced and deleted chunks are gone from keyword search too.
		e.replace(p, "/d/food.md", mk("/d/food.md", "kim1b", "Food", "sauerkraut instead"))
		_, err = e.store.DeleteChunks(e.ctx, p, []string{"kim2"})
		require.NoError(e.t, err)
		assert.Empty(e.t, kw("kimchi", core.ChunkFilter{}, 10))
		assert.Equal(e.t, []string{"kim1b"}, hitIDs(kw("sauerkraut", core.ChunkFilter{}, 10)))
	}},
	{"a bad batch writes nothing", func(e *env) {
		p := e.project()
		e.replace(p, "/d/a.md", mkChunk("/d/a.md", "a1", 0, 0))
		_, err := e.store.ReplaceFileChunks(e.ctx, p, "/d/a.md", []core.Chunk{mkChunk("/d/a.md", "x", 0, 0), mkChunk("/d/other.md", "y", 1, 0)})
		assert.ErrorIs(e.t, err, core.ErrInvalidArgument)
		_, err = e.store.ReplaceFileChunks(e.ctx, p, "/d/a.md", []core.Chunk{mkChunk("/d/a.md", "x", 0, 0), mkChunk("/d/a.md", "x", 1, 0)})
		assert.ErrorIs(e.t, err, core.ErrInvalidArgument)
		hits := e.searchChunks(p, core.ChunkQuery{Vector: unit(0), Model: testModel, Limit: 10})
		assert.Equal(e.t, []string{"a1"}, hitIDs(hits))
		assert.False(e.t, slices.Contains(hitIDs(hits), "x"))
	}},
}
