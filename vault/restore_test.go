package vault

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// ageFiles sets every file's mtime well into the past: a file read just
// after it was written is racy (racyWindow) and read again at a restart.
func ageFiles(t *testing.T, root string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			err = os.Chtimes(p, old, old)
		}
		return err
	}))
}

func TestRestartReadsNoNoteFile(t *testing.T) {
	root := fixtureVault(t)
	ageFiles(t, root)
	store := memstore.New()
	first, err := newTestMirror(t, root, store, func(c *Config) { c.Ignore = fixtureIgnore }).Sync(t.Context())
	require.NoError(t, err)
	require.Equal(t, first.Notes, first.Read)

	again, err := newTestMirror(t, root, store, func(c *Config) { c.Ignore = fixtureIgnore }).Sync(t.Context())
	require.NoError(t, err)
	assert.Zero(t, again.Read, "every note comes from the store's states")
	assert.Zero(t, again.Written)
	assert.Zero(t, again.Deleted)
	assert.Equal(t, first.Notes, again.Notes)
	assert.Equal(t, first.Links, again.Links)
	assert.Equal(t, first.Unresolved, again.Unresolved)
	checkGraph(t, graphOf(t, root, allNotes(t, store)))
}

// A restart on an embedded store opened again (its graph loaded by the
// restart's NoteStates, the states given from the same pass) reads no
// file, writes nothing and reports the broken links a full sync found (a
// restart reads no text: it knows no other problem).
func TestRestartOnAStoreOpenedAgain(t *testing.T) {
	root := fixtureVault(t)
	ageFiles(t, root)
	dir := t.TempDir()
	store, err := memstore.Open(dir)
	require.NoError(t, err)
	m := newTestMirror(t, root, store, func(c *Config) { c.Ignore = fixtureIgnore })
	first, err := m.Sync(t.Context())
	require.NoError(t, err)
	want, wantNotes := brokenLinks(m), describe(t, store)
	require.NotEmpty(t, want, "the fixture has broken links")
	require.NoError(t, store.Close(t.Context()))

	store, err = memstore.Open(dir)
	require.NoError(t, err)
	defer store.Close(t.Context())
	m = newTestMirror(t, root, store, func(c *Config) { c.Ignore = fixtureIgnore })
	again, err := m.Sync(t.Context())
	require.NoError(t, err)
	assert.Zero(t, again.Read)
	assert.Zero(t, again.Written)
	assert.Zero(t, again.Deleted)
	assert.Equal(t, first.Links, again.Links)
	assert.Equal(t, first.Unresolved, again.Unresolved)
	assert.Equal(t, want, brokenLinks(m))
	assert.Equal(t, wantNotes, describe(t, store))
}

// brokenLinks lists the broken-link problems of m's notes.
func brokenLinks(m *Mirror) []string {
	var out []string
	for _, e := range m.Lint().All() {
		for _, p := range e.Problems {
			if strings.HasPrefix(p, brokenLinkPrefix) {
				out = append(out, e.Path+": "+p)
			}
		}
	}
	return out
}

func TestRestartReadsOnlyWhatChanged(t *testing.T) {
	root := writeVault(t, map[string]string{
		"a.md":       "[[c]] [[gone]]",
		"x/c.md":     "deep c",
		"gone.md":    "soon deleted",
		"stable.md":  "never changes [[a]]",
		"edited.md":  "before",
		"touched.md": "same text",
	})
	ageFiles(t, root)
	store := memstore.New()
	_, err := newTestMirror(t, root, store).Sync(t.Context())
	require.NoError(t, err)

	writeFile(t, root, "c.md", "root c")
	require.NoError(t, os.Remove(filepath.Join(root, "gone.md")))
	writeFile(t, root, "edited.md", "after")
	writeFile(t, root, "touched.md", "same text") // a new mtime, the same hash

	stats, err := newTestMirror(t, root, store).Sync(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 4, stats.Read, "c.md, edited.md, touched.md, and a.md whose links resolve otherwise")
	assert.Equal(t, 3, stats.Written, "c.md, edited.md and a.md")
	assert.Equal(t, 1, stats.Deleted)
	assert.Equal(t, []string{"c.md", ""}, noteTargets(storeNote(t, store, "a.md")))
}

// TestRestartRepairsWhatTheStoreHoldsWrongly: a note whose stored links
// resolve otherwise than the vault's rules give (here written by hand) is
// read and written again, and so is a note the store knows no size of.
func TestRestartRepairsWhatTheStoreHoldsWrongly(t *testing.T) {
	root := writeVault(t, map[string]string{"a.md": "[[b]]", "b.md": "b", "c.md": "c"})
	ageFiles(t, root)
	store := memstore.New()
	_, err := newTestMirror(t, root, store).Sync(t.Context())
	require.NoError(t, err)

	wrong := *storeNote(t, store, "a.md")
	wrong.Links[0].Target = "c.md"
	unknown := *storeNote(t, store, "c.md")
	unknown.Size = -1
	require.NoError(t, store.UpsertNotes(t.Context(), testProject, []core.Note{wrong, unknown}))

	stats, err := newTestMirror(t, root, store).Sync(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 2, stats.Read)
	assert.Equal(t, 2, stats.Written)
	assert.Equal(t, []string{"b.md"}, noteTargets(storeNote(t, store, "a.md")))
	assert.Equal(t, int64(1), storeNote(t, store, "c.md").Size)
}

// TestRestartEqualsAFullSync changes a vault at random while no mirror
// runs (new, edited, deleted and touched notes, case twins, notes moving
// between folders) and checks that a restart leaves the store as a first
// sync of the changed vault into an empty store does.
func TestRestartEqualsAFullSync(t *testing.T) {
	names, text := restartNames, restartText
	for seed := range uint64(30) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 7))
			root := t.TempDir()
			writeRestartVault(t, r, root)
			store := memstore.New()
			_, err := newTestMirror(t, root, store, func(c *Config) { c.BatchSize = 3 }).Sync(t.Context())
			require.NoError(t, err)

			for _, n := range names {
				p := filepath.Join(root, n+".md")
				switch r.IntN(5) {
				case 0:
					_ = os.Remove(p)
				case 1:
					writeFile(t, root, n+".md", text(r))
				case 2:
					if raw, err := os.ReadFile(p); err == nil {
						writeFile(t, root, n+".md", string(raw)) // touched
					}
				}
			}
			stats, err := newTestMirror(t, root, store, func(c *Config) { c.BatchSize = 3 }).Sync(t.Context())
			require.NoError(t, err)
			assertAsAFullSync(t, root, store, stats)
		})
	}
}

// TestChangesRightAfterARestartEqualAFullSync: a restart leaves the
// index's linkers to build after its sync (linkers.buildLater), in the
// background for a live mirror; changes synced at once after it, racing
// that build, resolve every link as a full sync of the vault does. A
// mirror that only syncs leaves them to their first use: the sync of the
// changes.
func TestChangesRightAfterARestartEqualAFullSync(t *testing.T) {
	for seed := range uint64(30) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 11))
			root := t.TempDir()
			writeRestartVault(t, r, root)
			// Files settled long ago: the restart reads none of them, and
			// the sync after it reads only what changed, so the notes
			// linking to a note that came or went are found by the
			// linkers alone.
			ageFiles(t, root)
			store := memstore.New()
			_, err := newTestMirror(t, root, store).Sync(t.Context())
			require.NoError(t, err)

			live := seed%2 == 0
			m := newTestMirror(t, root, store, func(c *Config) { c.Live = live })
			t.Cleanup(func() { _ = m.Close() }) // the live walk's watches
			restart, err := m.Sync(t.Context())
			require.NoError(t, err)
			require.Zero(t, restart.Read, "the restart reads no note file")
			if !live {
				m.mu.Lock()
				require.False(t, m.idx.linkers.settled(), "a mirror that only syncs builds the linkers at their first use")
				m.mu.Unlock()
			}
			changeAtRandom(t, r, root, 4)
			stats, err := m.Sync(t.Context())
			require.NoError(t, err)
			assertAsAFullSync(t, root, store, stats)
		})
	}
}

// assertAsAFullSync checks that store, after a sync that gave stats,
// holds what a first sync of the vault at root into an empty store does.
func assertAsAFullSync(t *testing.T, root string, store core.GraphReader, stats SyncStats) {
	t.Helper()
	fresh := memstore.New()
	want, err := newTestMirror(t, root, fresh).Sync(t.Context())
	require.NoError(t, err)
	assert.Equal(t, want.Notes, stats.Notes)
	assert.Equal(t, want.Unresolved, stats.Unresolved)
	assert.Equal(t, describe(t, fresh), describe(t, store))
}

// describe lists every note of the test project with its title, content,
// links' targets, size and tags, by ID. A note read within racyWindow of
// its last change carries Size racySize, a mark for the next restart and
// not a difference of content: on a loaded machine either sync may have
// read a file that soon, so the mark is shown as the file's size (the
// notes of these tests have no frontmatter: the file is the content).
func describe(t *testing.T, store core.GraphReader) []string {
	var out []string
	for _, n := range allNotes(t, store) {
		size := n.Size
		if size == racySize {
			size = int64(len(n.Content))
		}
		out = append(out, fmt.Sprintf("%s %q %q %v %d %v", n.ID, n.Path, n.Content, noteTargets(&n), size, n.Tags))
	}
	sort.Strings(out)
	return out
}

// TestWrittenOfStoredLinks: the target as written, read back from a stored
// link's Raw, is what parsing the note gave, for every link of the
// fixture vault.
func TestWrittenOfStoredLinks(t *testing.T) {
	root := fixtureVault(t)
	checked := 0
	require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		require.NoError(t, err)
		if d.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		raw, err := os.ReadFile(p)
		require.NoError(t, err)
		rel, err := filepath.Rel(root, p)
		require.NoError(t, err)
		parsed := parseNote(filepath.ToSlash(rel), raw)
		for _, s := range parsed.spans {
			assert.Equal(t, s.written, writtenOf(s.link, parsed.note.Path), "%s: %s", rel, s.link.Raw)
			checked++
		}
		return nil
	}))
	require.Positive(t, checked)
	assert.Equal(t, "k", writtenOf(core.Link{Raw: "not a link", Key: "k"}, "a.md"))
}

// statesFailing is a store whose NoteStates fails: the first sync reads
// every file instead, as before states existed.
type statesFailing struct{ core.GraphStore }

func (statesFailing) NoteStates(context.Context, string, func(core.NoteState) error) error {
	return core.NewProviderError("states", errStoreDown)
}

func TestRestartWithoutStatesReadsEverything(t *testing.T) {
	root := writeVault(t, map[string]string{"a.md": "[[b]]", "b.md": "b"})
	ageFiles(t, root)
	store := memstore.New()
	_, err := newTestMirror(t, root, store).Sync(t.Context())
	require.NoError(t, err)
	stats, err := newTestMirror(t, root, statesFailing{store}).Sync(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 2, stats.Read)
	assert.Zero(t, stats.Written)
}

// TestARacyReadHeldUpIsStillRacy: a file changed again within the tick of
// the mtime the sync read, keeping its size, while the reading goroutine is
// held up for longer than racyWindow before it judges the read (a busy
// machine; TestLiveFolderStormConverges once kept a note's old content at
// load 14): the read is still racy, so the next restart reads the file again
// and finds the change.
func TestARacyReadHeldUpIsStillRacy(t *testing.T) {
	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	racyWindow = time.Minute // the files the test writes are racy when read at once
	var heldUp atomic.Int64  // how far the test's clock is ahead of the real one
	now = func() time.Time { return time.Now().Add(time.Duration(heldUp.Load())) }
	var once sync.Once
	root := writeVault(t, map[string]string{"a.md": "one", "b.md": "[[a]]"})
	afterReadHook = func(rel string) {
		if rel != "a.md" {
			return
		}
		once.Do(func() {
			path := filepath.Join(root, "a.md")
			st, err := os.Stat(path)
			require.NoError(t, err)
			writeFile(t, root, "a.md", "two") // same size, same mtime: one clock tick
			require.NoError(t, os.Chtimes(path, st.ModTime(), st.ModTime()))
			heldUp.Store(int64(time.Hour)) // the goroutine runs again an hour later
		})
	}
	defer func() { now, afterReadHook = time.Now, nil }()

	store := memstore.New()
	_, err := newTestMirror(t, root, store).Sync(t.Context())
	require.NoError(t, err)
	require.Equal(t, "one", storeNote(t, store, "a.md").Content, "the sync read a.md before the change")
	assert.Equal(t, int64(racySize), storeNote(t, store, "a.md").Size, "a read begun within racyWindow of the mtime is racy")

	_, err = newTestMirror(t, root, store).Sync(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "two", storeNote(t, store, "a.md").Content, "the restart read the racy file again")
}

// TestARacyFileIsReadAgain: a file changed within the tick of its stored
// mtime, keeping its size, is found at a restart because it was read too
// soon after its modification to trust its size and mtime.
func TestARacyFileIsReadAgain(t *testing.T) {
	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	racyWindow = time.Hour // every file written by the test is racy
	root := writeVault(t, map[string]string{"a.md": "one", "b.md": "[[a]]"})
	store := memstore.New()
	_, err := newTestMirror(t, root, store).Sync(t.Context())
	require.NoError(t, err)
	assert.Equal(t, int64(racySize), storeNote(t, store, "a.md").Size, "read within racyWindow of its mtime")
	again, err := newTestMirror(t, root, store).Sync(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 2, again.Read, "racy files are read at a restart")
	assert.Zero(t, again.Written, "and not written when their text is the same")
	st, err := os.Stat(filepath.Join(root, "a.md"))
	require.NoError(t, err)
	writeFile(t, root, "a.md", "two") // same size
	require.NoError(t, os.Chtimes(filepath.Join(root, "a.md"), st.ModTime(), st.ModTime()))

	stats, err := newTestMirror(t, root, store).Sync(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 2, stats.Read, "both racy files are read")
	assert.Equal(t, 1, stats.Written, "only the one whose text changed is written")
	assert.Equal(t, "two", storeNote(t, store, "a.md").Content)
}

// A first sync, or a restart that resolved every stored link again, stamps
// the embedded store; the next restart on the same store,
// nothing written since, keeps the stored targets (restoreStamped) and
// ends as a full sync does. A write by another process, or the restart's
// own writes after a file changed, withdraw the stamp: the restart after
// resolves again.
func TestRestartOnAStampedStore(t *testing.T) {
	root := fixtureVault(t)
	ageFiles(t, root)
	dir := t.TempDir()
	ctx := t.Context()
	restart := func() (*Mirror, SyncStats, *memstore.Store) {
		t.Helper()
		store, err := memstore.Open(dir)
		require.NoError(t, err)
		m := newTestMirror(t, root, store, func(c *Config) { c.Ignore = fixtureIgnore })
		stats, err := m.Sync(ctx)
		require.NoError(t, err)
		return m, stats, store
	}
	full := func() ([]string, []string) {
		t.Helper()
		fresh := memstore.New()
		m := newTestMirror(t, root, fresh, func(c *Config) { c.Ignore = fixtureIgnore })
		_, err := m.Sync(ctx)
		require.NoError(t, err)
		return describe(t, fresh), brokenLinks(m)
	}

	_, _, store := restart() // the first sync, which stamps what it wrote
	require.NoError(t, store.Close(ctx))
	m, stats, store := restart()
	assert.Equal(t, restoreStamped, m.restore)
	assert.Zero(t, stats.Read)
	assert.Zero(t, stats.Written)
	wantNotes, wantBroken := full()
	assert.Equal(t, wantNotes, describe(t, store))
	assert.Equal(t, wantBroken, brokenLinks(m))
	require.NoError(t, store.Close(ctx))

	// Another process writes (another project of the same store).
	other, err := memstore.Open(dir)
	require.NoError(t, err)
	require.NoError(t, other.UpsertNotes(ctx, "other", []core.Note{{ID: "x.md", Path: "x.md", Title: "x", Hash: "h"}}))
	require.NoError(t, other.Close(ctx))
	m, _, store = restart()
	assert.Equal(t, restoreStampable, m.restore, "written since the stamp")
	assert.Equal(t, wantNotes, describe(t, store))
	require.NoError(t, store.Close(ctx))

	// Stamped again by that restart; a file changes: the stamped restart
	// keeps the stored targets, applies the change as a rescan does and
	// writes, which withdraws the stamp.
	m, _, store = restart()
	require.Equal(t, restoreStamped, m.restore)
	require.NoError(t, store.Close(ctx))
	writeFile(t, root, "Inbox.md", "now links [[Home]] and [[Roadmap]]")
	m, stats, store = restart()
	assert.Equal(t, restoreStamped, m.restore)
	assert.Equal(t, 1, stats.Written)
	wantNotes, wantBroken = full()
	assert.Equal(t, wantNotes, describe(t, store))
	assert.Equal(t, wantBroken, brokenLinks(m))
	require.NoError(t, store.Close(ctx))
	ageFiles(t, root)
	m, _, store = restart()
	assert.NotEqual(t, restoreStamped, m.restore, "written since the stamp")
	assert.Equal(t, wantNotes, describe(t, store))
	assert.Equal(t, wantBroken, brokenLinks(m))
	require.NoError(t, store.Close(ctx))
}

// TestSwappedFilesWithTheSameStatAreReadAgain: two notes of the same size
// written in one tick of the clock (the same mtime), whose folders then
// swap names, are each at the other's path with the size and mtime the
// index holds for that path; only the inode tells them apart. A rescan
// must read both again (TestLiveFolderStormConverges failed this way under
// load: the index kept the other note's content, and no later rescan
// looked again).
func TestSwappedFilesWithTheSameStatAreReadAgain(t *testing.T) {
	root := writeVault(t, map[string]string{"a/n.md": "one", "b/n.md": "two"})
	tick := time.Now().Add(-time.Hour) // long ago: not racy
	for _, rel := range []string{"a/n.md", "b/n.md"} {
		require.NoError(t, os.Chtimes(filepath.Join(root, rel), tick, tick))
	}
	store := memstore.New()
	m := newTestMirror(t, root, store)
	_, err := m.Sync(t.Context())
	require.NoError(t, err)
	require.Equal(t, "one", storeNote(t, store, "a/n.md").Content)

	mv := func(from, to string) {
		require.NoError(t, os.Rename(filepath.Join(root, from), filepath.Join(root, to)))
	}
	mv("a", "t")
	mv("b", "a")
	mv("t", "b")
	stats, err := m.Sync(t.Context()) // the rescan of a running mirror
	require.NoError(t, err)
	assert.Equal(t, "two", storeNote(t, store, "a/n.md").Content)
	assert.Equal(t, "one", storeNote(t, store, "b/n.md").Content)
	assert.Equal(t, 2, stats.Written)
}

// restartNames are the notes the restart property tests create, change and
// delete at random: case twins, and keys several notes answer to.
var restartNames = []string{"a", "b", "c", "x/a", "x/b", "y/c", "A", "x/A", "y/z/b", "d"}

// changeAtRandom deletes one in oneIn of restartNames' notes at root
// and writes another one in oneIn anew (restartText), created if missing.
func changeAtRandom(t *testing.T, r *rand.Rand, root string, oneIn int) {
	t.Helper()
	for _, n := range restartNames {
		switch r.IntN(oneIn) {
		case 0:
			_ = os.Remove(filepath.Join(root, n+".md"))
		case 1:
			writeFile(t, root, n+".md", restartText(r))
		}
	}
}

// restartText is a random note text for them: up to four links to other
// names, a tag and a word.
func restartText(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(5) {
		fmt.Fprintf(&b, "[[%s]] ", restartNames[r.IntN(len(restartNames))])
	}
	fmt.Fprintf(&b, "#t%d words %d", r.IntN(3), r.IntN(1000))
	return b.String()
}

// writeRestartVault writes the first notes of a restart property test:
// about two thirds of restartNames, each with a random restartText.
func writeRestartVault(t *testing.T, r *rand.Rand, root string) {
	t.Helper()
	for _, n := range restartNames {
		if r.IntN(3) > 0 {
			writeFile(t, root, n+".md", restartText(r))
		}
	}
}
