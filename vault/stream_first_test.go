package vault

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// streamVault is a generated vault with what a streaming first sync
// (stream.go) must repair or get right without reading ahead: case twins
// (their IDs come from the walk), keys several notes answer to whose
// winner is written in a later part, a note too large to read that other
// notes link to, and a note removed after the walk (streamHook).
func streamVault(seed uint64) map[string]string {
	rng := rand.New(rand.NewPCG(seed, 26))
	files := genVault(rng, 20+rng.IntN(30))
	for p, c := range map[string]string{
		"Case/Twin.md":  "upper twin [[twin]] [[big]]",
		"case/twin.md":  "lower twin [[Case/Twin]] [[zz/dup]]",
		"a/dup.md":      "first dup [[dup]] [[zz/late]]",
		"zz/dup.md":     "last dup [[dup]] [[twin]]",
		"m/dup.md":      "dup in m [[dup]] [[gone]]",
		"zz/late.md":    "late [[dup]] [[gone]] [[big]]",
		"big.md":        strings.Repeat("x", 5000) + " [[dup]]",
		"gone.md":       "removed after the walk [[dup]]",
		"zz/z/gone2.md": "removed after the walk too",
		"0first.md":     "[[gone]] [[zz/z/gone2]] [[big]] [[dup]] [[late]]",
	} {
		files[p] = c
	}
	return files
}

// A first sync that streams the vault into an empty store in parts gives
// the store, the lint and the counts a sync holding every note gives (one
// staged call), with notes too large to read and notes gone after the
// walk repaired.
func TestStreamingFirstSyncMatchesOneCall(t *testing.T) {
	for seed := range uint64(10) {
		files := streamVault(seed)
		root := writeVault(t, files)
		small := func(c *Config) { c.MaxFileSize = 4096 }
		store := memstore.New()
		parts := 0
		streamHook = func(k int) {
			parts++
			if k == 1 {
				require.NoError(t, os.Remove(filepath.Join(root, "gone.md")))
				require.NoError(t, os.Remove(filepath.Join(root, "zz/z/gone2.md")))
			}
		}
		m := newTestMirror(t, root, store, small, func(c *Config) { c.BatchSize, c.StagedBatch = 2, 3+int(seed%4) })
		stats, err := m.Sync(t.Context())
		streamHook = nil
		require.NoError(t, err)
		require.Greater(t, parts, 3, "seed %d: the sync streamed", seed)

		want := memstore.New()
		ref := newTestMirror(t, root, want, small)
		wantStats, err := ref.Sync(t.Context())
		require.NoError(t, err)

		require.Equal(t, normalized(storeSnapshot(t, want, testProject)), normalized(storeSnapshot(t, store, testProject)), "seed %d", seed)
		require.Equal(t, ref.Lint().All(), m.Lint().All(), "seed %d", seed)
		require.Equal(t, wantStats.Notes, stats.Notes)
		require.Equal(t, wantStats.Links, stats.Links)
		require.Equal(t, wantStats.Unresolved, stats.Unresolved)
		require.Equal(t, wantStats.Written, stats.Written, "seed %d: each note counted once", seed)
		require.Zero(t, stats.Deleted, "seed %d: nothing deleted that was never written", seed)
		require.Zero(t, m.Pending())
		require.Empty(t, m.bodies)

		// The index agrees with the store: a rescan has nothing to do.
		again, err := m.Sync(t.Context())
		require.NoError(t, err)
		require.Zero(t, again.Written+again.Deleted, "seed %d", seed)

		// The notes linking on each key, listed once the parts were
		// written, are those the notes' links give.
		m.mu.Lock()
		entries := map[*entry]bool{}
		var keys []string
		for _, e := range m.idx.byPath {
			entries[e] = true
			eachKey(e.links, func(k string) { keys = append(keys, k) })
		}
		require.NotEmpty(t, keys)
		require.Equal(t, linkersOf(entries), contents(&m.idx.linkers, keys), "seed %d", seed)
		m.mu.Unlock()
	}
}

// failingStaged fails its staged call number failAt (from 1), once.
type failingStaged struct {
	*memstore.Store
	calls, failAt int32
}

func (s *failingStaged) UpsertNotesStaged(ctx context.Context, project string, notes []core.Note, progress func(int)) error {
	if atomic.AddInt32(&s.calls, 1) == s.failAt {
		return core.NewProviderError("test", errors.New("store down"))
	}
	return s.Store.UpsertNotesStaged(ctx, project, notes, progress)
}

// A store that fails in the middle of a streaming first sync: Sync
// returns its error with the whole vault in the index and the notes not
// written queued, and the next Sync completes the store.
func TestStreamingFirstSyncStoreFailure(t *testing.T) {
	files := streamVault(3)
	root := writeVault(t, files)
	store := &failingStaged{Store: memstore.New(), failAt: 2}
	m := newTestMirror(t, root, store, func(c *Config) { c.BatchSize, c.StagedBatch = 2, 4 })
	_, err := m.Sync(t.Context())
	require.Error(t, err)
	require.Positive(t, m.Pending())

	stats, err := m.Sync(t.Context())
	require.NoError(t, err)
	require.Positive(t, stats.Written)
	require.Zero(t, m.Pending())

	want := memstore.New()
	_, err = newTestMirror(t, root, want).Sync(t.Context())
	require.NoError(t, err)
	require.Equal(t, normalized(storeSnapshot(t, want, testProject)), normalized(storeSnapshot(t, store, testProject)))
}

// A streaming first sync cancelled halfway returns the context's error
// and leaves no index; the next Sync restores the parts written from the
// store and completes it.
func TestStreamingFirstSyncCancelled(t *testing.T) {
	files := streamVault(5)
	root := writeVault(t, files)
	store := memstore.New()
	ctx, cancel := context.WithCancel(t.Context())
	streamHook = func(k int) {
		if k == 3 {
			cancel()
		}
	}
	t.Cleanup(func() { streamHook = nil })
	m := newTestMirror(t, root, store, func(c *Config) { c.BatchSize, c.StagedBatch = 2, 4 })
	_, err := m.Sync(ctx)
	require.ErrorIs(t, err, context.Canceled)
	streamHook = nil
	hashes, err := store.NoteHashes(t.Context(), testProject)
	require.NoError(t, err)
	require.NotEmpty(t, hashes, "the parts before the cancel are written")
	require.Less(t, len(hashes), len(files))

	_, err = m.Sync(t.Context())
	require.NoError(t, err)
	want := memstore.New()
	_, err = newTestMirror(t, root, want).Sync(t.Context())
	require.NoError(t, err)
	require.Equal(t, normalized(storeSnapshot(t, want, testProject)), normalized(storeSnapshot(t, store, testProject)))
}

// streamingStore is a memstore taking staged writes in parts
// (core.StagedStreamer) as the Neo4j store does, with the outcome of one
// staged call of every part's notes at Finish; it counts the parts and
// fails the Write or Finish numbered failWrite or failFinish (from 1),
// once each.
type streamingStore struct {
	*memstore.Store
	parts, finishes       []int // each Write's size; each Finish's note count
	writes, finished      int32
	failWrite, failFinish int32
}

type testStream struct {
	s        *streamingStore
	project  string
	progress func(int)
	notes    []core.Note
}

func (s *streamingStore) BeginStaged(_ context.Context, project string, progress func(int)) (core.StagedStream, error) {
	return &testStream{s: s, project: project, progress: progress}, nil
}

func (st *testStream) Write(_ context.Context, notes []core.Note) error {
	if atomic.AddInt32(&st.s.writes, 1) == st.s.failWrite {
		return core.NewProviderError("test", errors.New("store down"))
	}
	st.s.parts = append(st.s.parts, len(notes))
	st.notes = append(st.notes, notes...)
	return nil
}

func (st *testStream) Finish(ctx context.Context) error {
	if atomic.AddInt32(&st.s.finished, 1) == st.s.failFinish {
		return core.NewProviderError("test", errors.New("store down"))
	}
	st.s.finishes = append(st.s.finishes, len(st.notes))
	return st.s.UpsertNotesStaged(ctx, st.project, st.notes, st.progress)
}

// A first sync into a store that takes a staged write in parts gives it
// every part as one stream, parts of at most StagedBatch notes, finished
// once, and the store ends as after a sync holding every note.
func TestStreamingFirstSyncIntoAStagedStream(t *testing.T) {
	for seed := range uint64(6) {
		files := streamVault(seed)
		root := writeVault(t, files)
		store := &streamingStore{Store: memstore.New()}
		size := 3 + int(seed%4)
		m := newTestMirror(t, root, store, func(c *Config) { c.BatchSize, c.StagedBatch = 2, size })
		stats, err := m.Sync(t.Context())
		require.NoError(t, err)
		require.Greater(t, len(store.parts), 3, "seed %d: the sync streamed", seed)
		for _, n := range store.parts {
			require.LessOrEqual(t, n, size)
		}
		require.Len(t, store.finishes, 1, "seed %d: one stream", seed)
		require.Zero(t, m.Pending())
		require.Empty(t, m.bodies)

		want := memstore.New()
		ref := newTestMirror(t, root, want)
		wantStats, err := ref.Sync(t.Context())
		require.NoError(t, err)
		require.Equal(t, normalized(storeSnapshot(t, want, testProject)), normalized(storeSnapshot(t, store, testProject)), "seed %d", seed)
		require.Equal(t, wantStats.Written, stats.Written, "seed %d", seed)
	}
}

// A stream that fails (a part, or Finish) leaves every note of the vault
// queued: the notes of the parts it took have no links in the store. The
// next Sync writes them, again as one stream in parts, and the store ends
// as after a sync holding every note.
func TestStreamingFirstSyncStreamFailure(t *testing.T) {
	for _, fail := range []struct{ write, finish int32 }{{write: 3}, {finish: 1}} {
		files := streamVault(4)
		root := writeVault(t, files)
		store := &streamingStore{Store: memstore.New(), failWrite: fail.write, failFinish: fail.finish}
		m := newTestMirror(t, root, store, func(c *Config) { c.BatchSize, c.StagedBatch = 2, 4 })
		_, err := m.Sync(t.Context())
		require.Error(t, err)
		require.GreaterOrEqual(t, m.Pending(), len(files)-3, "%+v: every note readable is queued", fail)

		_, err = m.Sync(t.Context())
		require.NoError(t, err)
		require.Zero(t, m.Pending())
		require.Empty(t, m.bodies)

		want := memstore.New()
		_, err = newTestMirror(t, root, want).Sync(t.Context())
		require.NoError(t, err)
		require.Equal(t, normalized(storeSnapshot(t, want, testProject)), normalized(storeSnapshot(t, store, testProject)), "%+v", fail)
	}
}
