package vault

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// countingStore counts the notes a store is asked to write and delete.
type countingStore struct {
	core.GraphStore
	upserted atomic.Int64
	deleted  atomic.Int64
}

func (s *countingStore) UpsertNotes(ctx context.Context, project string, notes []core.Note) error {
	s.upserted.Add(int64(len(notes)))
	return s.GraphStore.UpsertNotes(ctx, project, notes)
}

func (s *countingStore) DeleteNotes(ctx context.Context, project string, ids []string) (int, error) {
	s.deleted.Add(int64(len(ids)))
	return s.GraphStore.DeleteNotes(ctx, project, ids)
}

// allNotes reads every note of the test project back from a store.
func allNotes(t testing.TB, store core.GraphReader) []core.Note {
	t.Helper()
	hashes, err := store.NoteHashes(context.Background(), testProject)
	require.NoError(t, err)
	ids := make([]string, 0, len(hashes))
	for id := range hashes {
		ids = append(ids, id)
	}
	notes, err := store.GetNotes(context.Background(), testProject, ids)
	require.NoError(t, err)
	return notes
}

// storeNote reads one note from a store; nil when missing.
func storeNote(t testing.TB, store core.GraphReader, id string) *core.Note {
	t.Helper()
	n, err := store.GetNote(context.Background(), testProject, id)
	if err != nil {
		require.ErrorIs(t, err, core.ErrNotFound)
		return nil
	}
	return n
}

func noteTargets(n *core.Note) []string {
	if n == nil {
		return nil
	}
	out := make([]string, len(n.Links))
	for i, l := range n.Links {
		out[i] = l.Target
	}
	return out
}

func TestSyncFixtureIntoMemstore(t *testing.T) {
	root := fixtureVault(t)
	store := memstore.New()
	m := newTestMirror(t, root, store, func(c *Config) { c.Ignore = fixtureIgnore; c.BatchSize = 3 })
	_, err := m.Sync(t.Context())
	require.NoError(t, err)
	checkGraph(t, graphOf(t, root, allNotes(t, store)))
}

// A first sync says at debug level where its time went, phase by phase.
func TestFirstSyncLogsItsPhases(t *testing.T) {
	root := fixtureVault(t)
	var logs bytes.Buffer
	m := newTestMirror(t, root, memstore.New(), func(c *Config) {
		c.Ignore = fixtureIgnore
		c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	_, err := m.Sync(t.Context())
	require.NoError(t, err)
	for _, phase := range []string{"phase=walk", `phase="read and parse"`, `phase="index and resolve"`, `phase="compare with the store"`, "phase=write"} {
		assert.Contains(t, logs.String(), phase)
	}
	assert.Regexp(t, `phase=write seconds=[0-9.e-]+ written=[1-9]`, logs.String())
}

func TestWarmRestartWritesNothing(t *testing.T) {
	root := fixtureVault(t)
	store := &countingStore{GraphStore: memstore.New()}
	first := newTestMirror(t, root, store, func(c *Config) { c.Ignore = fixtureIgnore })
	stats, err := first.Sync(t.Context())
	require.NoError(t, err)
	require.Equal(t, stats.Notes, stats.Written)

	store.upserted.Store(0)
	second := newTestMirror(t, root, store, func(c *Config) { c.Ignore = fixtureIgnore })
	stats, err = second.Sync(t.Context())
	require.NoError(t, err)
	assert.Zero(t, stats.Written)
	assert.Zero(t, stats.Deleted)
	assert.Zero(t, store.upserted.Load())
	assert.Zero(t, store.deleted.Load())

	t.Run("rewrite writes everything again", func(t *testing.T) {
		third := newTestMirror(t, root, store, func(c *Config) { c.Ignore = fixtureIgnore; c.Rewrite = true })
		stats, err := third.Sync(t.Context())
		require.NoError(t, err)
		assert.Equal(t, stats.Notes, stats.Written)
	})
}

func TestRestartAppliesWhatChangedWhileStopped(t *testing.T) {
	root := writeVault(t, map[string]string{
		"a.md":      "[[c]] [[gone]]",
		"x/c.md":    "deep c",
		"gone.md":   "soon deleted",
		"stable.md": "never changes",
		"edited.md": "before",
	})
	store := &countingStore{GraphStore: memstore.New()}
	_, err := newTestMirror(t, root, store).Sync(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []string{"x/c.md", "gone.md"}, noteTargets(storeNote(t, store, "a.md")))

	// While no mirror runs: a closer "c" appears, a note goes, one is edited.
	writeFile(t, root, "c.md", "root c")
	require.NoError(t, os.Remove(filepath.Join(root, "gone.md")))
	writeFile(t, root, "edited.md", "after")
	store.upserted.Store(0)

	stats, err := newTestMirror(t, root, store).Sync(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []string{"c.md", ""}, noteTargets(storeNote(t, store, "a.md")), "a.md is rewritten: its links resolve differently")
	assert.Nil(t, storeNote(t, store, "gone.md"))
	assert.Equal(t, "after", storeNote(t, store, "edited.md").Content)
	assert.Equal(t, 3, stats.Written, "c.md, edited.md and a.md; stable.md and x/c.md are untouched")
	assert.Equal(t, 1, stats.Deleted)
}

func TestAmbiguousForwardLinksAcrossBatches(t *testing.T) {
	// Batches of one note, in ID order: a.md, b/c.md, c.md. a.md's link to
	// c.md is written before c.md exists; the store then resolves it to
	// b/c.md, the first note claiming key "c". The mirror writes a.md again.
	// The store is memstore seen as a plain core.GraphStore, so that the
	// mirror writes in batches rather than in one staged write.
	for name, store := range map[string]core.GraphStore{
		"batches": struct{ core.GraphStore }{memstore.New()},
		"staged":  memstore.New(),
	} {
		t.Run(name, func(t *testing.T) {
			root := writeVault(t, map[string]string{"a.md": "[[c]]", "b/c.md": "", "c.md": ""})
			_, err := newTestMirror(t, root, store, func(c *Config) { c.BatchSize = 1 }).Sync(t.Context())
			require.NoError(t, err)
			assert.Equal(t, []string{"c.md"}, noteTargets(storeNote(t, store, "a.md")))
		})
	}
}

func TestSyncWithAFailingStoreKeepsChangesQueued(t *testing.T) {
	root := writeVault(t, map[string]string{"a.md": "[[b]]", "b.md": ""})
	store := newFakeStore()
	store.setFail(true)
	m := newTestMirror(t, root, store)
	stats, err := m.Sync(t.Context())
	require.Error(t, err)
	assert.True(t, core.IsProviderError(err), "the store's provider error is kept: %v", err)
	assert.Equal(t, 2, stats.Notes, "the vault is loaded even though the store is down")
	assert.Equal(t, 2, m.Pending())

	store.setFail(false)
	_, err = m.Sync(t.Context())
	require.NoError(t, err)
	assert.Zero(t, m.Pending())
	assert.Equal(t, []string{"b.md"}, targets(t, store.snapshot(), "a.md"))
}

func TestSyncOfAMissingRootFails(t *testing.T) {
	_, err := NewMirror(Config{Root: filepath.Join(t.TempDir(), "nope"), Project: "p", Store: newFakeStore()})
	require.Error(t, err)
	_, err = NewMirror(Config{})
	require.ErrorContains(t, err, "root is empty")
	require.ErrorContains(t, err, "project is empty")
	require.ErrorContains(t, err, "store is nil")
}

func TestIgnoreGlobs(t *testing.T) {
	root := writeVault(t, map[string]string{
		"keep.md":                   "",
		"templates/t.md":            "",
		"deep/templates/t.md":       "",
		"drawing.excalidraw.md":     "",
		"archive/2019/old.md":       "",
		"archive/2020/keep.md":      "",
		".hidden/x.md":              "",
		"folder/.dotfile.md":        "",
		"daily/a/draft-1.md":        "",
		"daily/a/final.md":          "",
		"notes/Templates-Guide.md":  "",
		"notes/README.txt":          "",
		"notes/sub/UPPER.MD":        "",
		"attachments/note.md.bak":   "",
		"attachments/picture.png":   "",
		"archive/2019-summary.md":   "",
		"archive/2019/nested/x.md":  "",
		"archive/other/2019/old.md": "",
	})
	store := newFakeStore()
	m := newTestMirror(t, root, store, func(c *Config) {
		c.Ignore = []string{"templates", "*.excalidraw.md", "archive/2019", "daily/**/draft-*.md"}
	})
	_, err := m.Sync(t.Context())
	require.NoError(t, err)
	var paths []string
	for _, n := range store.snapshot() {
		paths = append(paths, n.Path)
	}
	assert.ElementsMatch(t, []string{
		"keep.md", "archive/2020/keep.md", "daily/a/final.md", "notes/Templates-Guide.md",
		"notes/sub/UPPER.MD", "archive/2019-summary.md", "archive/other/2019/old.md",
		"attachments/picture.png", "notes/README.txt", // attachments are nodes (issue 45.2)
	}, paths)
}

func TestWalkSkipsSymlinksAndLargeFiles(t *testing.T) {
	outside := writeVault(t, map[string]string{"secret.md": "outside the vault", "dir/inner.md": "outside too"})
	root := writeVault(t, map[string]string{"a.md": "small", "big.md": strings.Repeat("x", 2048)})
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(root, "link.md")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "dir"), filepath.Join(root, "linkdir")))
	store := newFakeStore()
	m := newTestMirror(t, root, store, func(c *Config) { c.MaxFileSize = 1024 })
	stats, err := m.Sync(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 1, stats.Notes)
	assert.Contains(t, store.snapshot(), "a.md")
	assert.Equal(t, []string{"skipped: larger than 1024 bytes"}, m.Lint().get("big.md"))
}
