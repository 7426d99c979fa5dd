package vault

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/confine"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// syncedWriter returns a writer over a synced vault of files, mirrored
// into memstore.
func syncedWriter(t *testing.T, files map[string]string) (string, *Writer, core.GraphStore) {
	t.Helper()
	root := writeVault(t, files)
	store := memstore.New()
	m := newTestMirror(t, root, store)
	_, err := m.Sync(t.Context())
	require.NoError(t, err)
	return root, m.Writer(), store
}

func readVaultFile(t *testing.T, root, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	require.NoError(t, err)
	return string(b)
}

// tempFiles lists files an atomic write left behind.
func tempFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".vaultgraph-") {
			out = append(out, p)
		}
		return err
	}))
	return out
}

func TestPathAttacksAreRefused(t *testing.T) {
	outside := t.TempDir()
	writeFile(t, outside, "secret.md", "secret")
	root, w, _ := syncedWriter(t, map[string]string{"sub/in.md": "in", "keep.md": "keep"})
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "out")))
	require.NoError(t, os.Symlink(filepath.Join(root, "sub"), filepath.Join(root, "inlink")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(root, "secret.md")))
	m := w.m
	m.ignore, _ = newIgnoreMatcher([]string{"templates"})

	attacks := map[string]string{
		"parent":                  "../x.md",
		"parent inside the path":  "a/../../x.md",
		"parent at the end":       "a/..",
		"absolute":                "/etc/passwd.md",
		"windows drive":           `C:\x.md`,
		"drive with slash":        "C:/x.md",
		"backslash":               `a\b.md`,
		"nul byte":                "a\x00b.md",
		"newline":                 "a\nb.md",
		"hidden folder":           ".obsidian/x.md",
		"hidden file":             "a/.x.md",
		"symlink to outside dir":  "out/x.md",
		"symlink to outside file": "secret.md",
		"symlinked folder inside": "inlink/x.md",
		"ignored folder":          "templates/x.md",
		"name too long":           strings.Repeat("a", 300) + ".md",
		"not markdown":            "x.txt",
		"empty":                   "",
		"root":                    ".",
	}
	for name, p := range attacks {
		t.Run(name, func(t *testing.T) {
			_, err := w.CreateFile(t.Context(), p, []byte("x"))
			require.ErrorIs(t, err, core.ErrInvalidPath)
			require.ErrorIs(t, err, core.ErrInvalidArgument, "an invalid path is an invalid argument")
			_, err = w.WriteFile(t.Context(), p, []byte("x"), "")
			require.ErrorIs(t, err, core.ErrInvalidPath)
			require.ErrorIs(t, w.DeleteFile(t.Context(), p), core.ErrInvalidPath)
			_, err = w.Rename(t.Context(), "keep.md", p)
			require.ErrorIs(t, err, core.ErrInvalidPath)
			_, _, err = w.ReadFile(p)
			require.ErrorIs(t, err, core.ErrInvalidPath)
		})
	}
	t.Run("create through a directory attack", func(t *testing.T) {
		for _, dir := range []string{"../outside", "/tmp", "out", "inlink", ".git", `a\b`} {
			_, err := w.Create(t.Context(), core.NewNote{Title: "x", Content: "x", Directory: dir})
			require.ErrorIs(t, err, core.ErrInvalidPath, dir)
		}
	})
	t.Run("rename to a name that would break links", func(t *testing.T) {
		_, err := w.Rename(t.Context(), "keep.md", "a#b.md")
		require.ErrorIs(t, err, core.ErrInvalidPath)
	})
	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "nothing was written outside the vault")
	assert.Equal(t, "secret", readVaultFile(t, outside, "secret.md"))
	assert.Equal(t, "keep", readVaultFile(t, root, "keep.md"))
}

func TestCreate(t *testing.T) {
	root, w, store := syncedWriter(t, map[string]string{"a.md": "[[Meeting Notes 2024-01-15]]"})
	n, err := w.Create(t.Context(), core.NewNote{
		Title: "Meeting Notes 2024-01-15", Content: "# Meeting\n\nDiscussed [[a]].\n",
		Tags: []string{"meeting", "#project-x", "Meeting"}, Directory: "meetings/2024",
	})
	require.NoError(t, err)
	assert.Equal(t, "meetings/2024/meeting notes 2024-01-15.md", n.ID)
	assert.Equal(t, "meetings/2024/Meeting Notes 2024-01-15.md", n.Path, "the file name is the title, as in Obsidian")
	assert.Equal(t, "Meeting Notes 2024-01-15", n.Title)
	assert.Equal(t, []string{"meeting", "project-x"}, n.Tags)
	assert.Equal(t, "# Meeting\n\nDiscussed [[a]].\n", n.Content)
	assert.Equal(t, []string{"a.md"}, noteTargets(n))
	assert.Equal(t, "---\ntags:\n  - meeting\n  - project-x\n---\n# Meeting\n\nDiscussed [[a]].\n",
		readVaultFile(t, root, "meetings/2024/Meeting Notes 2024-01-15.md"), "no frontmatter title: the file name shows it")

	stored := storeNote(t, store, n.ID)
	require.NotNil(t, stored, "the store is updated in the same call")
	assert.Equal(t, n.Hash, stored.Hash)
	assert.Equal(t, []string{n.ID}, noteTargets(storeNote(t, store, "a.md")), "a dangling link resolves")

	t.Run("a title that is already a file name gets no frontmatter", func(t *testing.T) {
		n, err := w.Create(t.Context(), core.NewNote{Title: "plain", Content: "body"})
		require.NoError(t, err)
		assert.Equal(t, "plain.md", n.ID)
		assert.Equal(t, "body", readVaultFile(t, root, "plain.md"))
	})
	t.Run("never clobbers", func(t *testing.T) {
		_, err := w.Create(t.Context(), core.NewNote{Title: "Plain", Content: "other"})
		require.ErrorIs(t, err, core.ErrExists)
		_, err = w.CreateFile(t.Context(), "plain.md", []byte("other"))
		require.ErrorIs(t, err, core.ErrExists)
		assert.Equal(t, "body", readVaultFile(t, root, "plain.md"))
	})
	t.Run("a path differing only by case exists", func(t *testing.T) {
		_, err := w.CreateFile(t.Context(), "PLAIN.md", []byte("other"))
		require.ErrorIs(t, err, core.ErrExists)
	})
	t.Run("a file the mirror has not seen yet", func(t *testing.T) {
		writeFile(t, root, "unseen.md", "made behind the mirror's back")
		_, err := w.CreateFile(t.Context(), "unseen.md", []byte("other"))
		require.ErrorIs(t, err, core.ErrExists)
		assert.Equal(t, "made behind the mirror's back", readVaultFile(t, root, "unseen.md"))
	})
	t.Run("bad title and tags", func(t *testing.T) {
		_, err := w.Create(t.Context(), core.NewNote{Title: "  ", Content: "x"})
		require.ErrorIs(t, err, core.ErrInvalidArgument)
		_, err = w.Create(t.Context(), core.NewNote{Title: "t", Content: "x", Tags: []string{"c++"}})
		require.ErrorIs(t, err, core.ErrInvalidArgument)
	})
	assert.Empty(t, tempFiles(t, root))
}

func TestUpdate(t *testing.T) {
	root, w, store := syncedWriter(t, map[string]string{
		"notes/old.md": "---\n# kept comment\ntitle: Old\nstatus: draft\ntags: [a]\n---\nold body #inline\n",
	})
	t.Run("content keeps the frontmatter", func(t *testing.T) {
		body := "new body #inline2\n"
		n, report, err := w.Update(t.Context(), "notes/old.md", core.NoteUpdate{Content: &body})
		require.NoError(t, err)
		assert.Nil(t, report)
		assert.Equal(t, body, n.Content)
		assert.Equal(t, "---\n# kept comment\ntitle: Old\nstatus: draft\ntags: [a]\n---\nnew body #inline2\n", readVaultFile(t, root, "notes/old.md"))
		assert.Equal(t, body, storeNote(t, store, "notes/old.md").Content)
	})
	t.Run("tags replace every tag: other inline tags are escaped", func(t *testing.T) {
		tags := []string{"x", "z"}
		n, _, err := w.Update(t.Context(), "notes/old.md", core.NoteUpdate{Tags: &tags})
		require.NoError(t, err)
		assert.Equal(t, []string{"x", "z"}, n.Tags)
		assert.Equal(t, "---\n# kept comment\ntitle: Old\nstatus: draft\ntags:\n  - x\n  - z\n---\nnew body \\#inline2\n", readVaultFile(t, root, "notes/old.md"))
		body := "b #Z #keep [[L#h]] `#code` #drop/sub\n"
		tags = []string{"z", "keep"}
		_, _, err = w.Update(t.Context(), "notes/old.md", core.NoteUpdate{Content: &body})
		require.NoError(t, err)
		n, _, err = w.Update(t.Context(), "notes/old.md", core.NoteUpdate{Tags: &tags})
		require.NoError(t, err)
		assert.Equal(t, []string{"z", "keep"}, n.Tags)
		assert.Equal(t, "b #Z #keep [[L#h]] `#code` \\#drop/sub\n", n.Content, "tags listed stay inline; links and code are not tags")
		tags = []string{"only"}
		body = "with content: #mine\n"
		n, _, err = w.Update(t.Context(), "notes/old.md", core.NoteUpdate{Content: &body, Tags: &tags})
		require.NoError(t, err)
		assert.Equal(t, []string{"only", "mine"}, n.Tags, "new content keeps its own inline tags")
		assert.Equal(t, body, n.Content)
	})
	t.Run("title renames the file", func(t *testing.T) {
		title := "Brand New"
		n, report, err := w.Update(t.Context(), "notes/old.md", core.NoteUpdate{Title: &title})
		require.NoError(t, err)
		require.NotNil(t, report)
		assert.Equal(t, core.RenameReport{OldID: "notes/old.md", NewID: "notes/brand new.md", Relinked: []core.Relinked{}}, *report)
		assert.Equal(t, "notes/brand new.md", n.ID)
		assert.Equal(t, "Brand New", n.Title)
		assert.Nil(t, storeNote(t, store, "notes/old.md"))
		assert.NotNil(t, storeNote(t, store, "notes/brand new.md"))
		assert.NotContains(t, readVaultFile(t, root, "notes/Brand New.md"), "title:", "the file name is the title: the old frontmatter title goes")
		_, err = os.Stat(filepath.Join(root, "notes", "old.md"))
		assert.ErrorIs(t, err, fs.ErrNotExist)
	})
	t.Run("a title that is a file name drops the frontmatter title", func(t *testing.T) {
		title := "plain"
		n, _, err := w.Update(t.Context(), "notes/brand new.md", core.NoteUpdate{Title: &title})
		require.NoError(t, err)
		assert.Equal(t, "notes/plain.md", n.ID)
		assert.NotContains(t, readVaultFile(t, root, "notes/plain.md"), "title:")
	})
	t.Run("content with its own frontmatter replaces it", func(t *testing.T) {
		content := "---\nstatus: done\n---\nfresh\n"
		n, _, err := w.Update(t.Context(), "notes/plain.md", core.NoteUpdate{Content: &content})
		require.NoError(t, err)
		assert.Equal(t, map[string]any{"status": "done"}, n.Frontmatter)
		assert.Equal(t, content, readVaultFile(t, root, "notes/plain.md"))
	})
	t.Run("missing note", func(t *testing.T) {
		body := "x"
		_, _, err := w.Update(t.Context(), "nope.md", core.NoteUpdate{Content: &body})
		require.ErrorIs(t, err, core.ErrNotFound)
	})
	t.Run("rename onto an existing note", func(t *testing.T) {
		_, err := w.CreateFile(t.Context(), "notes/taken.md", []byte("taken"))
		require.NoError(t, err)
		title := "Taken"
		_, _, err = w.Update(t.Context(), "notes/plain.md", core.NoteUpdate{Title: &title})
		require.ErrorIs(t, err, core.ErrExists)
		assert.Equal(t, "taken", readVaultFile(t, root, "notes/taken.md"))
	})
}

func TestWriteFileAndDelete(t *testing.T) {
	root, w, store := syncedWriter(t, map[string]string{"a.md": "v1", "b.md": "[[a]]"})
	raw, hash, err := w.ReadFile("a.md")
	require.NoError(t, err)
	require.Equal(t, "v1", string(raw))

	n, err := w.WriteFile(t.Context(), "a.md", []byte("v2"), hash)
	require.NoError(t, err)
	assert.Equal(t, "v2", n.Content)
	_, err = w.WriteFile(t.Context(), "a.md", []byte("v3"), hash)
	require.ErrorIs(t, err, core.ErrConflict, "the hash is stale")
	assert.Equal(t, "v2", readVaultFile(t, root, "a.md"))
	_, err = w.WriteFile(t.Context(), "none.md", []byte("x"), "")
	require.ErrorIs(t, err, core.ErrNotFound)
	_, _, err = w.ReadFile("none.md")
	require.ErrorIs(t, err, core.ErrNotFound)

	deleted, err := w.Delete(t.Context(), "a.md")
	require.NoError(t, err)
	assert.True(t, deleted)
	assert.Nil(t, storeNote(t, store, "a.md"))
	assert.Equal(t, []string{""}, noteTargets(storeNote(t, store, "b.md")), "the link to it is unresolved now")
	deleted, err = w.Delete(t.Context(), "a.md")
	require.NoError(t, err)
	assert.False(t, deleted)
	require.ErrorIs(t, w.DeleteFile(t.Context(), "a.md"), core.ErrNotFound)
	require.NoError(t, w.DeleteFile(t.Context(), "b.md"))
	assert.Nil(t, storeNote(t, store, "b.md"))
}

func TestAtomicWriteFailureKeepsTheOldContent(t *testing.T) {
	root, w, store := syncedWriter(t, map[string]string{"a.md": "original"})
	failing := errors.New("disk full")
	confine.SyncFile = func(*os.File) error { return failing }
	t.Cleanup(func() { confine.SyncFile = func(f *os.File) error { return f.Sync() } })

	_, err := w.WriteFile(t.Context(), "a.md", []byte("replacement"), "")
	require.ErrorIs(t, err, failing)
	assert.True(t, core.IsProviderError(err))
	assert.Equal(t, "original", readVaultFile(t, root, "a.md"))
	assert.Equal(t, "original", storeNote(t, store, "a.md").Content)

	_, err = w.CreateFile(t.Context(), "new.md", []byte("new"))
	require.ErrorIs(t, err, failing)
	_, statErr := os.Stat(filepath.Join(root, "new.md"))
	assert.ErrorIs(t, statErr, fs.ErrNotExist)
	assert.Nil(t, storeNote(t, store, "new.md"))
	assert.Empty(t, tempFiles(t, root), "no temporary file is left behind")
}

func TestWritesWithTheStoreDownSucceedAndQueue(t *testing.T) {
	root := writeVault(t, map[string]string{"a.md": "v1"})
	store := newFakeStore()
	m := newTestMirror(t, root, store)
	_, err := m.Sync(t.Context())
	require.NoError(t, err)

	store.setFail(true)
	ctx, warnings := core.WithCallWarnings(t.Context())
	n, err := m.Writer().CreateFile(ctx, "b.md", []byte("new"))
	require.NoError(t, err, "the file is written; the vault is the source of truth")
	assert.Equal(t, "b.md", n.ID)
	assert.Equal(t, 1, m.Pending())
	assert.Contains(t, warnings.List(), "Graph store unavailable: changes are queued and will be applied when it is back")

	store.setFail(false)
	_, err = m.Sync(t.Context())
	require.NoError(t, err)
	assert.Zero(t, m.Pending())
	assert.Equal(t, "new", store.snapshot()["b.md"].Content)
}

func TestWriterBeforeSync(t *testing.T) {
	m := newTestMirror(t, t.TempDir(), newFakeStore())
	_, err := m.Writer().CreateFile(t.Context(), "a.md", []byte("x"))
	require.ErrorIs(t, err, errNotLoaded)
}

func TestWatcherIgnoresTheWritersOwnChanges(t *testing.T) {
	root := writeVault(t, map[string]string{"a.md": "v1"})
	store := newFakeStore()
	m := newTestMirror(t, root, store, func(c *Config) { c.Debounce = 20 * time.Millisecond })
	startWatch(t, m)
	w := m.Writer()
	before, _, _ := store.counts()

	_, err := w.CreateFile(t.Context(), "made.md", []byte("by the writer"))
	require.NoError(t, err)
	_, err = w.WriteFile(t.Context(), "a.md", []byte("v2"), "")
	require.NoError(t, err)
	_, err = w.Rename(t.Context(), "made.md", "moved/made.md")
	require.NoError(t, err)
	afterWrites, _, _ := store.counts()
	require.Equal(t, before+3, afterWrites, "each write reached the store in its call")

	// A change the writer did not make, to know the events were processed.
	writeFile(t, root, "marker.md", "marker")
	eventually(t, "the marker is in the store", func() bool { return store.snapshot()["marker.md"].Hash != "" })
	after, _, _ := store.counts()
	assert.Equal(t, afterWrites+1, after, "the watcher wrote only the marker")
}

func TestSanitizeTitle(t *testing.T) {
	tests := map[string]string{
		"Meeting Notes 2024-01-15":    "meeting-notes-2024-01-15",
		"  Spaces   and\ttabs  ":      "spaces-and-tabs",
		`a/b\c:d*e?f"g<h>i|j#k^l[m]n`: "abcdefghijklmn",
		"Résumé Ünïcode":              "résumé-ünïcode",
		"---dashes---":                "dashes",
		".hidden":                     "hidden",
		"trailing dot.":               "trailing-dot",
		"###":                         "untitled",
		"":                            "untitled",
		"CON":                         "con-note",
		"a - b":                       "a-b",
		"ctrl\x00char\x1f":            "ctrlchar",
		strings.Repeat("é", 80):       strings.Repeat("é", 50),
	}
	for in, want := range tests {
		assert.Equal(t, want, SanitizeTitle(in), "%q", in)
	}
}

func TestEditFrontmatter(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		set    []fmField
		remove []string
		want   string
	}{
		{"adds a block", "body", []fmField{{"title", "T: x"}}, nil, "---\ntitle: 'T: x'\n---\nbody"},
		{"keeps comments and bad yaml", "---\n# c\nbad: @x\ntitle: a\n---\nb", []fmField{{"title", "b"}}, nil,
			"---\n# c\nbad: @x\ntitle: b\n---\nb"},
		{"removes a multi-line entry", "---\ntags:\n  - a\n  - b\nk: v\n---\nb", nil, []string{"tags"}, "---\nk: v\n---\nb"},
		{"removes the block when empty", "---\ntitle: a\n---\nbody", nil, []string{"TITLE"}, "body"},
		{"keeps CRLF and BOM", "\ufeff---\r\nk: v\r\n---\r\nbody\r\n", []fmField{{"num", 1}}, nil, "\ufeff---\r\nk: v\r\nnum: 1\r\n---\r\nbody\r\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, string(editFrontmatter([]byte(tc.in), tc.set, tc.remove)))
		})
	}
}

// WithCheck runs the check on the final path and bytes of Create and
// Update (the graph tools' writes), before anything is written; the
// path-based calls do not run it.
func TestWithCheckSeesTheFinalNoteAndStopsTheWrite(t *testing.T) {
	root, w, _ := syncedWriter(t, map[string]string{"Projects/a.md": "---\nk: v\n---\nbody"})
	type seen struct{ path, content string }
	var calls []seen
	refuse := false
	errNo := &core.ConstraintError{Msg: "no"}
	cw := w.WithCheck(func(_ context.Context, p string, c []byte) error {
		calls = append(calls, seen{p, string(c)})
		if refuse {
			return errNo
		}
		return nil
	})
	_, err := cw.Create(t.Context(), core.NewNote{Title: "New Note", Directory: "projects", Tags: []string{"t"}, Content: "x"})
	require.NoError(t, err)
	require.Len(t, calls, 1)
	assert.Equal(t, "Projects/New Note.md", calls[0].path, "the folder as on disk, the file name from the title")
	got, _ := os.ReadFile(filepath.Join(root, "Projects", "New Note.md"))
	assert.Equal(t, string(got), calls[0].content, "the bytes written")

	title := "Renamed"
	body := "new body"
	refuse = true
	_, _, err = cw.Update(t.Context(), "projects/a.md", core.NoteUpdate{Title: &title, Content: &body})
	require.ErrorIs(t, err, errNo)
	assert.Equal(t, seen{"Projects/Renamed.md", "---\nk: v\n---\nnew body"}, calls[1], "the destination of the rename, the whole new bytes")
	got, _ = os.ReadFile(filepath.Join(root, "Projects", "a.md"))
	assert.Equal(t, "---\nk: v\n---\nbody", string(got), "nothing written")
	_, err = os.Stat(filepath.Join(root, "Projects", "Renamed.md"))
	assert.True(t, os.IsNotExist(err), "nothing renamed")

	_, err = cw.Create(t.Context(), core.NewNote{Title: "Other", Content: "x"})
	require.ErrorIs(t, err, errNo)
	_, err = os.Stat(filepath.Join(root, "Other.md"))
	assert.True(t, os.IsNotExist(err))
	_, err = cw.CreateFile(t.Context(), "free.md", []byte("x"))
	require.NoError(t, err, "path-based calls are the kb service's, which checks itself")
	assert.Len(t, calls, 3)
}
