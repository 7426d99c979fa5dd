package vault

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/internal/editorproc"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// changeLog collects what Config.Changes is told.
type changeLog struct {
	mu   sync.Mutex
	list []core.NoteChange
}

func (l *changeLog) record(_ context.Context, cs []core.NoteChange) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.list = append(l.list, cs...)
}

// seen returns the changes so far as "kind path" ("kind old -> new" for a
// rename) and forgets them.
func (l *changeLog) seen() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, c := range l.list {
		s := string(c.Kind) + " " + c.Path
		if c.Kind == core.ChangeRenamed {
			s = string(c.Kind) + " " + c.OldPath + " -> " + c.Path
		}
		out = append(out, s)
	}
	l.list = nil
	return out
}

func (l *changeLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.list)
}

func TestChangesOfToolsAndOfTheFileSystemAreTold(t *testing.T) {
	root := writeVault(t, map[string]string{"a.md": "# A\n", "ref.md": "see [[new]]\n"})
	log := &changeLog{}
	store := memstore.New()
	m := newTestMirror(t, root, store, func(c *Config) { c.Debounce = 20 * time.Millisecond; c.Changes = log.record })
	startWatch(t, m)
	assert.Empty(t, log.seen(), "the first sync of an empty store tells nothing")
	w := m.Writer()
	ctx := t.Context()

	_, err := w.CreateFile(ctx, "new.md", []byte("new note\n"))
	require.NoError(t, err)
	assert.Equal(t, []string{"created new.md"}, log.seen())

	tags := []string{"x"}
	_, _, err = w.Update(ctx, "a.md", core.NoteUpdate{Tags: &tags})
	require.NoError(t, err)
	got := log.list[0]
	assert.Equal(t, []string{"modified a.md"}, log.seen())
	assert.Equal(t, int64(4), got.SizeBefore)
	assert.Greater(t, got.SizeAfter, got.SizeBefore)
	assert.Equal(t, "a", got.Title)

	_, err = w.Rename(ctx, "new.md", "dir/moved.md")
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"renamed new.md -> dir/moved.md", "modified ref.md"}, log.seen())

	_, _, _, err = w.EditNote(ctx, "A", func(_ string, raw []byte) ([]byte, error) { return append(raw, "more\n"...), nil })
	require.NoError(t, err)
	assert.Equal(t, []string{"modified a.md"}, log.seen())

	// The same through the file system, seen by the watcher.
	writeFile(t, root, "out.md", "from an editor\n")
	eventually(t, "the watcher sees out.md", func() bool { return log.count() > 0 })
	assert.Equal(t, []string{"created out.md"}, log.seen())
	require.NoError(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	require.NoError(t, os.Rename(filepath.Join(root, "out.md"), filepath.Join(root, "sub", "out2.md")))
	eventually(t, "the watcher sees the move", func() bool { return log.count() > 0 })
	assert.Equal(t, []string{"renamed out.md -> sub/out2.md"}, log.seen())
	require.NoError(t, os.Remove(filepath.Join(root, "sub", "out2.md")))
	eventually(t, "the watcher sees the delete", func() bool { return log.count() > 0 })
	assert.Equal(t, []string{"deleted sub/out2.md"}, log.seen())

	deleted, err := w.Delete(ctx, "dir/moved.md")
	require.NoError(t, err)
	require.True(t, deleted)
	assert.Equal(t, []string{"deleted dir/moved.md"}, log.seen())

	// An edit that changes nothing is no change.
	_, _, _, err = w.EditNote(ctx, "a.md", func(_ string, raw []byte) ([]byte, error) { return raw, nil })
	require.NoError(t, err)
	assert.Empty(t, log.seen())
}

func TestChangesWhileNothingRanAreToldAtTheNextStart(t *testing.T) {
	root := writeVault(t, map[string]string{"a.md": "a\n", "b.md": "b\n", "c.md": "c\n"})
	old := time.Now().Add(-time.Hour) // not racily clean: the restart trusts the store
	for _, f := range []string{"a.md", "b.md", "c.md"} {
		require.NoError(t, os.Chtimes(filepath.Join(root, f), old, old))
	}
	store := memstore.New()
	first := newTestMirror(t, root, store)
	_, err := first.Sync(t.Context())
	require.NoError(t, err)
	require.NoError(t, first.Close())

	writeFile(t, root, "a.md", "a changed\n")
	require.NoError(t, os.Remove(filepath.Join(root, "b.md")))
	writeFile(t, root, "d.md", "new\n")
	mtime := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	require.NoError(t, os.Chtimes(filepath.Join(root, "d.md"), mtime, mtime))

	log := &changeLog{}
	next := newTestMirror(t, root, store, func(c *Config) { c.Changes = log.record })
	_, err = next.Sync(t.Context())
	require.NoError(t, err)
	for _, c := range log.list {
		if c.Path == "d.md" {
			assert.True(t, c.At.Equal(mtime), "a change found at a start is dated by the file: %v", c.At)
		}
	}
	assert.Equal(t, []string{"modified a.md", "deleted b.md", "created d.md"}, log.seen())
}

// A note the store holds without a usable state (its file was read right
// after it changed) is read again at a restart: it is not a new note, and
// unchanged it is no change at all.
func TestARacyNoteIsNotNewAtTheNextStart(t *testing.T) {
	root := writeVault(t, map[string]string{"a.md": "a\n", "b.md": "b\n", "c.md": "c\n"})
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(root, "a.md"), old, old))
	require.NoError(t, os.Chtimes(filepath.Join(root, "c.md"), old, old))
	store := memstore.New() // b.md is racy: written just now
	first := newTestMirror(t, root, store)
	_, err := first.Sync(t.Context())
	require.NoError(t, err)
	require.NoError(t, first.Close())

	writeFile(t, root, "c.md", "c changed\n")
	log := &changeLog{}
	next := newTestMirror(t, root, store, func(c *Config) { c.Changes = log.record })
	_, err = next.Sync(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []string{"modified c.md"}, log.seen(), "b.md, racy and unchanged, is no change")
}

// TestEditNoteLosesNoOutsideEdit runs an editor process that appends lines
// to a note, in place, as fast as it can, while EditNote inserts lines
// under the note's heading: every line of both must be in the note at the
// end.
func TestEditNoteLosesNoOutsideEdit(t *testing.T) {
	root, w, _ := syncedWriter(t, map[string]string{"n.md": "# Log\n\nstart\n"})
	editor := editorproc.Start(t, "TestHelperAppender", filepath.Join(root, "n.md"))

	rounds := 300
	var ours []string
	for i := range rounds {
		line := fmt.Sprintf("tool %d", i)
		_, _, _, err := w.EditNote(t.Context(), "N", func(_ string, raw []byte) ([]byte, error) {
			s := string(raw)
			at := strings.Index(s, "\n") + 1 // under the heading
			return []byte(s[:at] + line + "\n" + s[at:]), nil
		})
		if errors.Is(err, core.ErrConflict) {
			continue // the note kept changing: nothing was written
		}
		require.NoError(t, err)
		ours = append(ours, line)
	}
	editorLines := editor.Stop(t)
	final := readVaultFile(t, root, "n.md")
	lost := 0
	for _, l := range append(editorLines, ours...) {
		if !strings.Contains(final, l+"\n") {
			lost++
			if lost < 5 {
				t.Errorf("lost %q", l)
			}
		}
	}
	t.Logf("%d edits, %d editor appends, %d lost", len(ours), len(editorLines), lost)
	require.GreaterOrEqual(t, len(editorLines), 50, "the editor appended too little to race anything")
	require.GreaterOrEqual(t, len(ours), rounds*9/10)
}

// TestHelperAppender is the editor of TestEditNoteLosesNoOutsideEdit: a
// line every 0.2 ms until the test ends it.
func TestHelperAppender(t *testing.T) { editorproc.Run(t, 200*time.Microsecond, math.MaxInt) }

// Issue 46: every change names who made it: the caller a tool's write
// carries, local for a write whose caller is not named, outside for what
// the watcher or a write's rescan found changed in the files.
func TestChangesNameWhoMadeThem(t *testing.T) {
	root := writeVault(t, map[string]string{"a.md": "# A\n", "b.md": "# B\n"})
	log := &changeLog{}
	m := newTestMirror(t, root, memstore.New(), func(c *Config) { c.Debounce = 20 * time.Millisecond; c.Changes = log.record })
	_, err := m.Sync(t.Context())
	require.NoError(t, err)
	w := m.Writer()
	ada := core.Actor{ID: "248289761001", Email: "ada@example.com", Name: "Ada"}
	actors := func() map[string]string {
		log.mu.Lock()
		defer log.mu.Unlock()
		out := map[string]string{}
		for _, c := range log.list {
			out[c.Path] = c.Actor.ID
		}
		log.list = nil
		return out
	}

	_, err = w.CreateFile(core.WithActor(t.Context(), ada), "by-ada.md", []byte("x\n"))
	require.NoError(t, err)
	log.mu.Lock()
	assert.Equal(t, ada, log.list[0].Actor, "email and name travel with the subject")
	log.mu.Unlock()
	assert.Equal(t, map[string]string{"by-ada.md": ada.ID}, actors())

	_, err = w.CreateFile(t.Context(), "unnamed.md", []byte("x\n"))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"unnamed.md": "local"}, actors())

	// Changed outside while nothing watched: the next write's rescan finds
	// it, and tells it as outside, beside the write's own change.
	writeFile(t, root, "b.md", "# B\nedited in an editor\n")
	tags := []string{"x"}
	_, _, err = w.Update(core.WithActor(t.Context(), ada), "a.md", core.NoteUpdate{Tags: &tags})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"a.md": ada.ID, "b.md": "outside"}, actors())

	startWatch(t, m)
	writeFile(t, root, "c.md", "from an editor\n")
	eventually(t, "the watcher sees c.md", func() bool { return log.count() > 0 })
	assert.Equal(t, map[string]string{"c.md": "outside"}, actors())
}
