package vault

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// liveDeadline bounds how long a live test waits for the store to reflect
// a file change. Changes normally show after the debounce (75 ms); the
// margin absorbs slow CI machines.
const liveDeadline = 10 * time.Second

// startWatch syncs m and runs Watch until the test ends, returning once
// every folder is watched.
func startWatch(t *testing.T, m *Mirror) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Watch(ctx) }()
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-done)
	})
	select {
	case <-m.live:
	case err := <-done:
		t.Fatalf("watch ended early: %v", err)
	case <-time.After(liveDeadline):
		t.Fatal("watch did not start")
	}
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(liveDeadline)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// liveVault starts live mode over a vault of files mirrored into memstore.
func liveVault(t *testing.T, files map[string]string) (string, *Mirror, core.GraphStore) {
	t.Helper()
	root := writeVault(t, files)
	store := memstore.New()
	m := newTestMirror(t, root, store, func(c *Config) { c.Debounce = 20 * time.Millisecond })
	startWatch(t, m)
	return root, m, store
}

func hasNote(t *testing.T, store core.GraphReader, id string) func() bool {
	return func() bool { return storeNote(t, store, id) != nil }
}

func noNote(t *testing.T, store core.GraphReader, id string) func() bool {
	return func() bool { return storeNote(t, store, id) == nil }
}

func linksTo(t *testing.T, store core.GraphReader, id string, want ...string) func() bool {
	return func() bool { return slices.Equal(noteTargets(storeNote(t, store, id)), want) }
}

func TestLiveEdit(t *testing.T) {
	root, _, store := liveVault(t, map[string]string{"a.md": "first", "b.md": ""})
	writeFile(t, root, "a.md", "second [[b]] #new")
	eventually(t, "the edit is in the store", func() bool {
		n := storeNote(t, store, "a.md")
		return n != nil && n.Content == "second [[b]] #new" && slices.Equal(n.Tags, []string{"new"}) && slices.Equal(noteTargets(n), []string{"b.md"})
	})
}

func TestLiveCreateResolvesDanglingLinks(t *testing.T) {
	root, _, store := liveVault(t, map[string]string{"a.md": "[[Later Note]]"})
	writeFile(t, root, "sub/Later Note.md", "here now")
	eventually(t, "the new note exists and a.md links to it", func() bool {
		return hasNote(t, store, "sub/later note.md")() && linksTo(t, store, "a.md", "sub/later note.md")()
	})
}

func TestLiveDeleteBreaksLinksWithAWarning(t *testing.T) {
	root, m, store := liveVault(t, map[string]string{"a.md": "[[b]]", "b.md": ""})
	require.NoError(t, os.Remove(filepath.Join(root, "b.md")))
	eventually(t, "b.md is gone and a.md's link unresolved", func() bool {
		return noNote(t, store, "b.md")() && linksTo(t, store, "a.md", "")()
	})
	assert.Equal(t, []string{"Broken link: [[b]]"}, m.Lint().get("a.md"))
}

func TestLiveCreateOfACloserNoteRetargetsLinks(t *testing.T) {
	root, _, store := liveVault(t, map[string]string{"a.md": "[[c]]", "deep/c.md": ""})
	require.True(t, linksTo(t, store, "a.md", "deep/c.md")())
	writeFile(t, root, "c.md", "closer")
	eventually(t, "a.md links to the root c.md", linksTo(t, store, "a.md", "c.md"))
	require.NoError(t, os.Remove(filepath.Join(root, "c.md")))
	eventually(t, "a.md links to deep/c.md again", linksTo(t, store, "a.md", "deep/c.md"))
}

func TestLiveRename(t *testing.T) {
	root, _, store := liveVault(t, map[string]string{"a.md": "[[old]] [[new]]", "old.md": "body"})
	require.NoError(t, os.Rename(filepath.Join(root, "old.md"), filepath.Join(root, "new.md")))
	eventually(t, "the note is under its new ID and links follow", func() bool {
		return noNote(t, store, "old.md")() && hasNote(t, store, "new.md")() && linksTo(t, store, "a.md", "", "new.md")()
	})
}

func TestLiveEditorSaveThroughTempFileAndRename(t *testing.T) {
	root, _, store := liveVault(t, map[string]string{"a.md": "v1"})
	// Like vim or VS Code: write a temporary file, then rename it over.
	for _, tmp := range []string{".a.md.swp", "a.md~", "a.md.tmp.123"} {
		writeFile(t, root, tmp, "v-"+tmp)
		require.NoError(t, os.Rename(filepath.Join(root, tmp), filepath.Join(root, "a.md")))
		eventually(t, "the saved content from "+tmp, func() bool {
			n := storeNote(t, store, "a.md")
			return n != nil && n.Content == "v-"+tmp
		})
	}
	for _, id := range []string{".a.md.swp", "a.md~", "a.md.tmp.123"} {
		assert.Nil(t, storeNote(t, store, id))
	}
}

func TestLiveNewSubfolderWithNotes(t *testing.T) {
	root, _, store := liveVault(t, map[string]string{"a.md": "[[deep]]"})
	// Created in one go: the nested folders exist before any watch on them.
	writeFile(t, root, "new/sub/deeper/deep.md", "deep")
	writeFile(t, root, "new/sub/other.md", "other")
	eventually(t, "both new notes are in the store", func() bool {
		return hasNote(t, store, "new/sub/deeper/deep.md")() && hasNote(t, store, "new/sub/other.md")()
	})
	eventually(t, "a.md resolves", linksTo(t, store, "a.md", "new/sub/deeper/deep.md"))
	// The new folders are watched: a later file in the deepest one shows up.
	writeFile(t, root, "new/sub/deeper/later.md", "later")
	eventually(t, "a note created later in the new folder", hasNote(t, store, "new/sub/deeper/later.md"))
}

func TestLiveFolderRename(t *testing.T) {
	root, _, store := liveVault(t, map[string]string{
		"a.md":               "[[projects/x/plan]] [[moved/x/plan]]",
		"projects/x/plan.md": "plan",
		"projects/top.md":    "top",
	})
	require.NoError(t, os.Rename(filepath.Join(root, "projects"), filepath.Join(root, "moved")))
	eventually(t, "the notes are under the new folder and links follow", func() bool {
		return noNote(t, store, "projects/x/plan.md")() && noNote(t, store, "projects/top.md")() &&
			hasNote(t, store, "moved/x/plan.md")() && hasNote(t, store, "moved/top.md")() &&
			linksTo(t, store, "a.md", "", "moved/x/plan.md")()
	})
	// The moved folders are watched under their new names.
	writeFile(t, root, "moved/x/after.md", "after")
	eventually(t, "a note created in the moved folder", hasNote(t, store, "moved/x/after.md"))
	writeFile(t, root, "moved/x/plan.md", "edited")
	eventually(t, "an edit in the moved folder", func() bool {
		n := storeNote(t, store, "moved/x/plan.md")
		return n != nil && n.Content == "edited"
	})
}

func TestLiveFolderDelete(t *testing.T) {
	root, _, store := liveVault(t, map[string]string{"keep.md": "", "gone/a.md": "", "gone/sub/b.md": ""})
	require.NoError(t, os.RemoveAll(filepath.Join(root, "gone")))
	eventually(t, "the folder's notes are deleted", func() bool {
		return noNote(t, store, "gone/a.md")() && noNote(t, store, "gone/sub/b.md")() && hasNote(t, store, "keep.md")()
	})
}

func TestLiveUnchangedContentWritesNothing(t *testing.T) {
	root := writeVault(t, map[string]string{"a.md": "same", "b.md": "other"})
	store := newFakeStore()
	m := newTestMirror(t, root, store, func(c *Config) { c.Debounce = 20 * time.Millisecond })
	startWatch(t, m)
	upserts, _, _ := store.counts()

	writeFile(t, root, "a.md", "same")    // rewritten, same bytes
	writeFile(t, root, "b.md", "changed") // a real change, to know when the burst is applied
	eventually(t, "b.md is updated", func() bool { return store.snapshot()["b.md"].Content == "changed" })
	after, _, _ := store.counts()
	assert.Equal(t, upserts+1, after, "only b.md was written")
}

func TestLiveCaseTwinAppears(t *testing.T) {
	root, _, store := liveVault(t, map[string]string{"Notes/A.md": "upper", "x.md": "[[notes/a]]"})
	require.True(t, hasNote(t, store, "notes/a.md")())
	if _, err := os.Stat(filepath.Join(root, "notes", "a.md")); err == nil {
		t.Skip("file system ignores letter case")
	}
	writeFile(t, root, "notes/a.md", "lower")
	eventually(t, "the lowercase twin takes the lowercase ID", func() bool {
		n := storeNote(t, store, "notes/a.md")
		return n != nil && n.Content == "lower" && hasNote(t, store, "Notes/A.md")() && linksTo(t, store, "x.md", "notes/a.md")()
	})
}

func TestLiveStoreOutageQueuesAndRetries(t *testing.T) {
	root := writeVault(t, map[string]string{"a.md": "v1"})
	store := newFakeStore()
	m := newTestMirror(t, root, store, func(c *Config) {
		c.Debounce = 20 * time.Millisecond
		c.RetryMin = 20 * time.Millisecond
		c.RetryMax = 100 * time.Millisecond
	})
	startWatch(t, m)

	store.setFail(true)
	writeFile(t, root, "a.md", "v2")
	writeFile(t, root, "b.md", "new")
	eventually(t, "the changes are queued", func() bool { return m.Pending() == 2 })

	writeFile(t, root, "c.md", "also while down")
	eventually(t, "the watcher keeps going", func() bool { return m.Pending() == 3 })

	store.setFail(false)
	eventually(t, "the queue drains into the store", func() bool {
		notes := store.snapshot()
		return m.Pending() == 0 && notes["a.md"].Content == "v2" && notes["b.md"].Hash != "" && notes["c.md"].Hash != ""
	})
}

func TestReconcileHealsMissedEvents(t *testing.T) {
	root := writeVault(t, map[string]string{"a.md": "v1"})
	store := memstore.New()
	m := newTestMirror(t, root, store, func(c *Config) { c.ReconcileInterval = 50 * time.Millisecond })
	_, err := m.Sync(t.Context())
	require.NoError(t, err)
	// Changes made before Watch starts produce no event at all.
	writeFile(t, root, "b.md", "made while nobody watched")
	_, err = store.DeleteNotes(t.Context(), testProject, []string{"a.md"}) // the store lost a note
	require.NoError(t, err)
	startWatch(t, m)
	eventually(t, "the rescan restores both", func() bool {
		return hasNote(t, store, "a.md")() && hasNote(t, store, "b.md")()
	})
	// And a periodic rescan heals later drift.
	_, err = store.DeleteNotes(t.Context(), testProject, []string{"b.md"})
	require.NoError(t, err)
	eventually(t, "the periodic rescan restores b.md", hasNote(t, store, "b.md"))
}

// recordingObserver keeps what a SyncObserver heard.
type recordingObserver struct {
	mu    sync.Mutex
	kinds []string
	lags  int
}

func (o *recordingObserver) SyncDone(_, kind string, _, _ int, _ time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.kinds = append(o.kinds, kind)
}
func (o *recordingObserver) SyncLag(string, time.Duration) { o.mu.Lock(); o.lags++; o.mu.Unlock() }
func (o *recordingObserver) SyncFailed(string)             {}

func TestTheObserverHearsOfSyncsAndLiveBatches(t *testing.T) {
	obs := &recordingObserver{}
	root := writeVault(t, map[string]string{"a.md": "x"})
	m := newTestMirror(t, root, newFakeStore(), func(c *Config) { c.Observer = obs; c.Debounce = 10 * time.Millisecond })
	_, err := m.Sync(t.Context())
	require.NoError(t, err)
	startWatch(t, m)
	writeFile(t, root, "b.md", "new")
	eventually(t, "a live batch is reported with its lag", func() bool {
		obs.mu.Lock()
		defer obs.mu.Unlock()
		return slices.Contains(obs.kinds, SyncLive) && obs.lags > 0
	})
	obs.mu.Lock()
	defer obs.mu.Unlock()
	assert.Equal(t, SyncFull, obs.kinds[0])
}

// With Config.Live, the first Sync's walk starts live mode's watches and
// Watch starts on them without a rescan: what changed between the Sync
// and Watch (a note edited, a folder with a note created, a note deleted)
// still reaches the store, from the events queued since.
func TestLiveFromTheFirstSyncSeesChangesBeforeWatch(t *testing.T) {
	root := writeVault(t, map[string]string{"a.md": "first", "b.md": "", "sub/c.md": "[[a]]"})
	store := memstore.New()
	m := newTestMirror(t, root, store, func(c *Config) { c.Debounce = 20 * time.Millisecond; c.Live = true })
	_, err := m.Sync(context.Background())
	require.NoError(t, err)
	writeFile(t, root, "a.md", "second [[b]]")
	writeFile(t, root, "new/deeper/d.md", "[[b]]")
	require.NoError(t, os.Remove(filepath.Join(root, "sub", "c.md")))
	m.mu.Lock()
	require.NotNil(t, m.early, "the first Sync did not start the watches")
	require.True(t, m.early.caughtUp)
	m.mu.Unlock()
	startWatch(t, m)
	eventually(t, "the edit before Watch reaches the store", linksTo(t, store, "a.md", "b.md"))
	eventually(t, "the folder created before Watch reaches the store", hasNote(t, store, "new/deeper/d.md"))
	eventually(t, "the note deleted before Watch leaves the store", noNote(t, store, "sub/c.md"))
	// And later changes, in the new folder too.
	writeFile(t, root, "new/deeper/e.md", "[[a]]")
	eventually(t, "a note created in the new folder reaches the store", hasNote(t, store, "new/deeper/e.md"))
}

// A Mirror whose first Sync started the watches and that is closed
// without Watch stops them (no watcher left open).
func TestLiveWatchesStopAtCloseWithoutWatch(t *testing.T) {
	root := writeVault(t, map[string]string{"a.md": ""})
	m := newTestMirror(t, root, memstore.New(), func(c *Config) { c.Live = true })
	_, err := m.Sync(context.Background())
	require.NoError(t, err)
	m.mu.Lock()
	require.NotNil(t, m.early, "the first Sync did not start the watches")
	m.mu.Unlock()
	require.NoError(t, m.Close())
	assert.Nil(t, m.early)
}
