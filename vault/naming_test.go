package vault

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
)

func TestTitleFileName(t *testing.T) {
	for title, want := range map[string]string{
		"Audit Note From Call":     "Audit Note From Call",
		"Q3: plan/review?":         "Q3- plan-review-",
		`a*b"c\d<e>f|g#h^i[j]k`:    "a-b-c-d-e-f-g-h-i-j-k",
		"  two\tlines\nhere  ":     "two lines here",
		"...hidden":                "hidden",
		"ends with dots...":        "ends with dots",
		"Cafe\u0301":               "Café",
		"CON":                      "_CON",
		"nul.txt":                  "_nul.txt",
		"Console":                  "Console",
		"v1.2":                     "v1.2",
		"100% sure & (maybe) it's": "100% sure & (maybe) it's",
		"   ":                      "Untitled",
		"?":                        "-",
		"\x7f":                     "-",
		"日本語のノート":                  "日本語のノート",
	} {
		assert.Equal(t, want, TitleFileName(title), "%q", title)
	}
	long := TitleFileName(strings.Repeat("é", 150))
	assert.Equal(t, MaxTitleFileNameBytes, len(long), "cut on a character boundary")
	assert.True(t, utf8.ValidString(long))
}

// TestTitleFileNameIsAlwaysANoteName: whatever the title, its file name
// is one the vault accepts for a new note (core.CheckNewName, no
// character that splits a link).
func TestTitleFileNameIsAlwaysANoteName(t *testing.T) {
	alphabet := []rune("aZ9 .-_\t\n\r*\"\\/<>:|?#^[]%&()'é\u0301日\u3000\u00a0\x00\x01\x7f\u0085\u200e\u202e.")
	r := rand.New(rand.NewPCG(45, 4))
	for i := 0; i < 20000; i++ {
		n := r.IntN(12)
		if i%50 == 0 {
			n = 300
		}
		var b strings.Builder
		for range n {
			b.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		title := b.String()
		for _, reserved := range []string{"", "con", "LPT1.", "aux.md"} {
			name := TitleFileName(reserved + title)
			require.NoError(t, core.CheckNewName(name+".md"), "%q -> %q", reserved+title, name)
			require.False(t, strings.ContainsAny(name, newNameChars), "%q -> %q", reserved+title, name)
			require.LessOrEqual(t, len(name), MaxTitleFileNameBytes)
		}
	}
}

// TestCreateAndRenameNameFilesAfterTheTitle: create_node and a rename by
// title write the title as the file name (so [[Title]] typed in Obsidian
// finds it); naming.filename: slug keeps the old names.
func TestCreateAndRenameNameFilesAfterTheTitle(t *testing.T) {
	t.Run("title (default)", func(t *testing.T) {
		root, w, store := syncedWriter(t, map[string]string{"Call log.md": "see [[Audit Note From Call]]"})
		n, err := w.Create(t.Context(), core.NewNote{Title: "Audit Note From Call", Content: "body"})
		require.NoError(t, err)
		assert.Equal(t, "Audit Note From Call.md", n.Path)
		assert.Equal(t, "audit note from call.md", n.ID)
		assert.Equal(t, "body", readVaultFile(t, root, "Audit Note From Call.md"))
		assert.Equal(t, []string{n.ID}, noteTargets(storeNote(t, store, "call log.md")), "the link typed before resolves")

		n, err = w.Create(t.Context(), core.NewNote{Title: "Q3: plan/review?", Content: "x"})
		require.NoError(t, err)
		assert.Equal(t, "Q3- plan-review-.md", n.Path)
		assert.Equal(t, "Q3: plan/review?", n.Title, "the exact title is kept in frontmatter")

		title := "Audit: Final"
		n, report, err := w.Update(t.Context(), "audit note from call.md", core.NoteUpdate{Title: &title})
		require.NoError(t, err)
		require.NotNil(t, report)
		assert.Equal(t, "Audit- Final.md", n.Path)
		assert.Equal(t, "Audit: Final", n.Title)
		assert.Equal(t, "see [[Audit- Final]]", readVaultFile(t, root, "Call log.md"))
		assert.Equal(t, []core.Relinked{{ID: "call log.md", Path: "Call log.md", Links: 1}}, report.Relinked)
	})
	t.Run("slug", func(t *testing.T) {
		root := writeVault(t, map[string]string{"Call log.md": "see [[audit-note-from-call]]"})
		store := memstore.New()
		m := newTestMirror(t, root, store, func(c *Config) { c.FileNames = FileNamesSlug })
		_, err := m.Sync(t.Context())
		require.NoError(t, err)
		w := m.Writer()
		n, err := w.Create(t.Context(), core.NewNote{Title: "Audit Note From Call", Content: "body"})
		require.NoError(t, err)
		assert.Equal(t, "audit-note-from-call.md", n.Path)
		assert.Equal(t, "---\ntitle: Audit Note From Call\n---\nbody", readVaultFile(t, root, "audit-note-from-call.md"))
		title := "Final Audit"
		n, _, err = w.Update(t.Context(), n.ID, core.NoteUpdate{Title: &title})
		require.NoError(t, err)
		assert.Equal(t, "final-audit.md", n.Path)
		assert.Equal(t, "Final Audit", n.Title)
	})
	t.Run("a bad setting is refused", func(t *testing.T) {
		_, err := NewMirror(Config{Root: t.TempDir(), Project: "p", Store: memstore.New(), FileNames: "kebab"})
		require.Error(t, err)
		assert.Contains(t, err.Error(), `"title" or "slug"`)
	})
}

// TestCreateFollowsNewFileLocation: a note created without a folder goes
// where the vault's Obsidian settings put new notes.
func TestCreateFollowsNewFileLocation(t *testing.T) {
	for _, tc := range []struct {
		name, settings, want string
		mkInbox              bool
	}{
		{"no settings: the root", "", "New.md", true},
		{"root", `{"newFileLocation":"root","newFileFolderPath":"Inbox"}`, "New.md", true},
		{"current: the root (no file is open)", `{"newFileLocation":"current"}`, "New.md", true},
		{"folder", `{"newFileLocation":"folder","newFileFolderPath":"Inbox"}`, "Inbox/New.md", true},
		{"folder in another letter case, with slashes", `{"newFileLocation":"folder","newFileFolderPath":"/inbox/"}`, "Inbox/New.md", true},
		{"a missing folder: the root, as in Obsidian", `{"newFileLocation":"folder","newFileFolderPath":"Inbox"}`, "New.md", false},
		{"a folder outside the vault: the root", `{"newFileLocation":"folder","newFileFolderPath":"../out"}`, "New.md", true},
		{"a hidden folder: the root", `{"newFileLocation":"folder","newFileFolderPath":".trash"}`, "New.md", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"a.md": "a"}
			if tc.settings != "" {
				files[".obsidian/app.json"] = tc.settings
			}
			if tc.mkInbox {
				files["Inbox/old.md"] = "old"
			}
			root, w, _ := syncedWriter(t, files)
			n, err := w.Create(t.Context(), core.NewNote{Title: "New", Content: "x"})
			require.NoError(t, err)
			assert.Equal(t, tc.want, n.Path)
			assert.Equal(t, "x", readVaultFile(t, root, tc.want))
			n, err = w.Create(t.Context(), core.NewNote{Title: "Given", Content: "x", Directory: "Elsewhere"})
			require.NoError(t, err)
			assert.Equal(t, "Elsewhere/Given.md", n.Path, "a directory given wins")
			_, err = os.Stat(filepath.Join(root, "..", "out"))
			assert.True(t, os.IsNotExist(err))
		})
	}
}

// TestCreateReportsTheNotesItRelinked: a create that takes over a bare
// link rewrites the other note so the link keeps its meaning, and says
// so (issue 45.5).
func TestCreateReportsTheNotesItRelinked(t *testing.T) {
	root, w, _ := syncedWriter(t, map[string]string{
		"A/Target.md": "the one",
		"B/Source.md": "see [[Target]] and [Target](Target.md)",
		"B/Other.md":  "[[Target]]",
		"C/Far.md":    "[[Target]]",
	})
	n, relinked, err := w.CreateReporting(t.Context(), core.NewNote{Title: "Target", Directory: "B", Content: "a newcomer"})
	require.NoError(t, err)
	assert.Equal(t, "B/Target.md", n.Path)
	assert.Equal(t, []core.Relinked{
		{ID: "b/other.md", Path: "B/Other.md", Links: 1},
		{ID: "b/source.md", Path: "B/Source.md", Links: 2},
	}, relinked)
	assert.Equal(t, "[[Target]]", readVaultFile(t, root, "C/Far.md"), "a link the new note does not take over is not touched")
	_, relinked, err = w.CreateReporting(t.Context(), core.NewNote{Title: "Alone", Content: "x"})
	require.NoError(t, err)
	assert.Equal(t, []core.Relinked{}, relinked, "none: an empty list")
}
