package neo4jstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/core/storetest"
	"github.com/vaultgraph/vaultgraph/embedding/flat"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// waitMirror waits until s mirrors project's vectors of model (starting
// the load if nothing has), or fails the test.
func waitMirror(t testing.TB, s *Neo4jStore, project, model string) *mirror {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		m := s.startMirror(project, model)
		m.mu.RLock()
		state := m.state
		m.mu.RUnlock()
		if state == mirrorReady {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("mirror of %s/%s not ready (state %d)", project, model, state)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// mirrorSnapshot returns m's state, revision and size.
func mirrorSnapshot(m *mirror) (mirrorState, int64, int) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	n := 0
	if m.index != nil {
		n = m.index.Len()
	}
	return m.state, m.rev, n
}

// mirrorFixture is a project written by one store (the writer, another
// process as far as the reader knows) and searched by another, next to a
// memstore given the same writes: the reference answer.
type mirrorFixture struct {
	t              *testing.T
	writer, reader *Neo4jStore
	mem            *memstore.Store
	project        string
	corpus         *storetest.SearchCorpus
}

// mirrorDim is the fixtures' vector size: the other tests' size, because
// a database has one vector index, recreated when the size changes.
const mirrorDim = 256

func newMirrorFixture(t *testing.T, notes int) *mirrorFixture {
	f := &mirrorFixture{t: t, writer: openStore(t), reader: openStore(t), mem: memstore.New()}
	f.corpus = storetest.NewSearchCorpus(7, notes, mirrorDim)
	f.project = fmt.Sprintf("mirror-%d", rand.Uint64())
	ctx := t.Context()
	require.NoError(t, f.writer.UpsertNotes(ctx, f.project, f.corpus.Notes))
	require.NoError(t, f.mem.UpsertNotes(ctx, f.project, f.corpus.Notes))
	vecs := make([]core.NoteVector, len(f.corpus.Notes))
	for i, n := range f.corpus.Notes {
		vecs[i] = core.NoteVector{ID: n.ID, Hash: n.Hash, Vector: f.corpus.Vectors[i]}
	}
	f.setVectors(vecs...)
	t.Cleanup(func() { _, _ = f.writer.DeleteNotes(context.Background(), f.project, noteIDsOf(f.corpus.Notes)) })
	return f
}

func (f *mirrorFixture) setVectors(vecs ...core.NoteVector) {
	f.t.Helper()
	require.NoError(f.t, f.writer.SetNoteVectors(f.t.Context(), f.project, "m", vecs))
	require.NoError(f.t, f.mem.SetNoteVectors(f.t.Context(), f.project, "m", vecs))
}

func (f *mirrorFixture) deleteNotes(ids ...string) {
	f.t.Helper()
	_, err := f.writer.DeleteNotes(f.t.Context(), f.project, ids)
	require.NoError(f.t, err)
	_, err = f.mem.DeleteNotes(f.t.Context(), f.project, ids)
	require.NoError(f.t, err)
}

// same requires the reader's answers (from its mirror) to equal the
// memstore's, score for score, for a spread of queries.
func (f *mirrorFixture) same(step string) {
	f.t.Helper()
	ctx := f.t.Context()
	for _, q := range f.corpus.Queries[:20] {
		want, err := f.mem.VectorSearch(ctx, f.project, "m", q.Vector, 10)
		require.NoError(f.t, err)
		got, ok := f.reader.mirrorSearch(ctx, f.project, "m", flat.Normalize(q.Vector), 10)
		require.True(f.t, ok, "%s: the mirror did not answer", step)
		require.Equal(f.t, want, got, "%s: mirror answer differs from memstore's", step)
		public, err := f.reader.VectorSearch(ctx, f.project, "m", q.Vector, 10)
		require.NoError(f.t, err)
		require.Equal(f.t, want, public, "%s: VectorSearch differs from memstore's", step)
	}
}

// TestMirrorFollowsAnotherProcess: a reader mirrors a project that another
// store instance keeps changing (new vectors, vectors removed, notes
// deleted and re-created without a vector), and after each change answers
// exactly as a memstore given the same writes.
func TestMirrorFollowsAnotherProcess(t *testing.T) {
	// Not parallel: the vector index is the database's, one dimension at a time.
	f := newMirrorFixture(t, 600)
	waitMirror(t, f.reader, f.project, "m")
	f.same("loaded")

	// Another process makes some notes the best match of the first query.
	q := f.corpus.Queries[0].Vector
	var moved []core.NoteVector
	for _, n := range f.corpus.Notes[100:103] {
		moved = append(moved, core.NoteVector{ID: n.ID, Hash: n.Hash, Vector: q})
	}
	f.setVectors(moved...)
	f.same("vectors changed elsewhere")
	hits, err := f.reader.VectorSearch(t.Context(), f.project, "m", q, 3)
	require.NoError(t, err)
	assert.ElementsMatch(t, noteIDsOf(f.corpus.Notes[100:103]), scoredIDs(hits))

	// ... then deletes them, and empties another note's vector.
	f.deleteNotes(noteIDsOf(f.corpus.Notes[100:102])...)
	n := f.corpus.Notes[102]
	f.setVectors(core.NoteVector{ID: n.ID, Hash: n.Hash})
	f.same("notes deleted and a vector emptied elsewhere")

	// A deleted note comes back without a vector: not a hit.
	require.NoError(t, f.writer.UpsertNotes(t.Context(), f.project, f.corpus.Notes[100:101]))
	require.NoError(t, f.mem.UpsertNotes(t.Context(), f.project, f.corpus.Notes[100:101]))
	f.same("note re-created without a vector")
}

// TestMirrorFollowsOwnWritesWithoutReadingBack: a store that writes
// vectors applies them to its own mirror and advances its revision, so its
// next search needs no catch-up.
func TestMirrorFollowsOwnWritesWithoutReadingBack(t *testing.T) {
	// Not parallel: the vector index is the database's, one dimension at a time.
	f := newMirrorFixture(t, 200)
	f.reader = f.writer // one process writing and searching
	m := waitMirror(t, f.writer, f.project, "m")
	_, rev0, n0 := mirrorSnapshot(m)
	require.Equal(t, 200, n0)

	extra := storetest.NewSearchCorpus(8, 20, mirrorDim)
	for i := range extra.Notes {
		extra.Notes[i].ID = "extra-" + extra.Notes[i].ID
	}
	require.NoError(t, f.writer.UpsertNotes(t.Context(), f.project, extra.Notes))
	require.NoError(t, f.mem.UpsertNotes(t.Context(), f.project, extra.Notes))
	t.Cleanup(func() { _, _ = f.writer.DeleteNotes(context.Background(), f.project, noteIDsOf(extra.Notes)) })
	for i, n := range extra.Notes {
		f.setVectors(core.NoteVector{ID: n.ID, Hash: n.Hash, Vector: extra.Vectors[i]})
	}
	state, rev, n := mirrorSnapshot(m)
	assert.Equal(t, mirrorReady, state)
	assert.Equal(t, rev0+20, rev, "the mirror follows each of its own writes")
	assert.Equal(t, 220, n)
	_, dbRev, err := f.writer.vectorRev(t.Context(), f.project)
	require.NoError(t, err)
	assert.Equal(t, dbRev, rev, "the mirror's revision is the database's")
	f.same("after own writes")
}

// TestMirrorReloadsAfterLargeChangeOrNewCounter: a change larger than one
// catch-up, or a counter created again (a wiped database), reloads the
// mirror; queries meanwhile still answer (through the vector index).
func TestMirrorReloadsAfterLargeChangeOrNewCounter(t *testing.T) {
	// Not parallel: the vector index is the database's, one dimension at a time.
	f := newMirrorFixture(t, 300)
	waitMirror(t, f.reader, f.project, "m")
	f.same("loaded")

	f.reader.mirrorMaxDelta.Store(10)
	re := storetest.NewSearchCorpus(9, 300, mirrorDim)
	vecs := make([]core.NoteVector, 50)
	for i := range vecs {
		n := f.corpus.Notes[i]
		vecs[i] = core.NoteVector{ID: n.ID, Hash: n.Hash, Vector: re.Vectors[i]}
	}
	f.setVectors(vecs...)
	_, ok := f.reader.mirrorSearch(t.Context(), f.project, "m", flat.Normalize(f.corpus.Queries[0].Vector), 10)
	assert.False(t, ok, "a change over mirrorMaxDelta is not applied while a query waits")
	waitMirror(t, f.reader, f.project, "m")
	f.same("reloaded after a large change")

	// The counter is created again, with a revision below the mirror's.
	wipe := statement{name: "test_wipe_vector_meta", text: "MATCH (m:VectorMeta {project: $project}) DELETE m"}
	require.NoError(t, f.writer.write(t.Context(), "test", func(tx txn) error {
		_, err := tx.collect(wipe, map[string]any{"project": f.project})
		return err
	}))
	n := f.corpus.Notes[5]
	f.setVectors(core.NoteVector{ID: n.ID, Hash: n.Hash, Vector: f.corpus.Queries[1].Vector})
	_, ok = f.reader.mirrorSearch(t.Context(), f.project, "m", flat.Normalize(f.corpus.Queries[1].Vector), 10)
	assert.False(t, ok, "a mirror does not trust a revision of another counter")
	waitMirror(t, f.reader, f.project, "m")
	f.same("reloaded after a new counter")
}

// TestMirrorOffAboveVectorCache: a project with more vectors than
// Config.VectorCache is not mirrored, and searched through the database.
func TestMirrorOffAboveVectorCache(t *testing.T) {
	// Not parallel: the vector index is the database's, one dimension at a time.
	f := newMirrorFixture(t, 300)
	small := openStoreWith(t, func(c *Config) { c.VectorCache = 100 })
	m := small.startMirror(f.project, "m")
	require.Eventually(t, func() bool { s, _, _ := mirrorSnapshot(m); return s == mirrorOff }, time.Minute, 10*time.Millisecond)
	q := f.corpus.Queries[0].Vector
	want, err := f.mem.VectorSearch(t.Context(), f.project, "m", q, 10)
	require.NoError(t, err)
	got, err := small.VectorSearch(t.Context(), f.project, "m", q, 10)
	require.NoError(t, err)
	storetest.SameRanking(t, want, got, 1e-5)

	off := openStoreWith(t, func(c *Config) { c.VectorCache = -1 })
	got, err = off.VectorSearch(t.Context(), f.project, "m", q, 10)
	require.NoError(t, err)
	storetest.SameRanking(t, want, got, 1e-5)
	off.mirrors.mu.Lock()
	assert.Empty(t, off.mirrors.all, "VectorCache < 0 mirrors nothing")
	off.mirrors.mu.Unlock()
}

// TestMirrorLoadedBeforeAnyVector: a mirror loaded while the project had
// no vector revision yet (a first sync: loaded, then embedded) catches up
// with the counter the first vectors create, from this process or another,
// without a reload.
func TestMirrorLoadedBeforeAnyVector(t *testing.T) {
	// Not parallel: the vector index is the database's, one dimension at a time.
	ctx := t.Context()
	c := storetest.NewSearchCorpus(12, 100, mirrorDim)
	for _, own := range []bool{true, false} {
		t.Run(fmt.Sprintf("own=%v", own), func(t *testing.T) {
			writer, mem := openStore(t), memstore.New()
			reader := writer
			if !own {
				reader = openStore(t)
			}
			project := fmt.Sprintf("mirror-first-%d", rand.Uint64())
			require.NoError(t, writer.UpsertNotes(ctx, project, c.Notes))
			require.NoError(t, mem.UpsertNotes(ctx, project, c.Notes))
			t.Cleanup(func() { _, _ = writer.DeleteNotes(context.Background(), project, noteIDsOf(c.Notes)) })
			m := waitMirror(t, reader, project, "m")
			vecs := make([]core.NoteVector, len(c.Notes))
			for i, n := range c.Notes {
				vecs[i] = core.NoteVector{ID: n.ID, Hash: n.Hash, Vector: c.Vectors[i]}
			}
			require.NoError(t, writer.SetNoteVectors(ctx, project, "m", vecs))
			require.NoError(t, mem.SetNoteVectors(ctx, project, "m", vecs))
			if own {
				_, rev, n := mirrorSnapshot(m)
				assert.Equal(t, int64(1), rev, "own first write advances the mirror")
				assert.Equal(t, 100, n)
			}
			for _, q := range c.Queries[:5] {
				want, err := mem.VectorSearch(ctx, project, "m", q.Vector, 10)
				require.NoError(t, err)
				got, ok := reader.mirrorSearch(ctx, project, "m", flat.Normalize(q.Vector), 10)
				require.True(t, ok, "the mirror caught up instead of reloading")
				require.Equal(t, want, got)
			}
		})
	}
}
