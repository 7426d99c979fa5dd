package vault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

// Tests of what a person sees in Obsidian (issue 22): names, letter case,
// Unicode forms, echoed titles, links that keep their meaning.

func TestEchoingATitleRenamesNothing(t *testing.T) {
	root, w, store := syncedWriter(t, map[string]string{
		"Spaces And CAPS.md": "body",
		"linker.md":          "[[Spaces And CAPS]] and [[spaces and caps|alias]]",
		"titled.md":          "---\ntitle: A Long Display Title\n---\nbody",
	})
	for _, title := range []string{"Spaces And CAPS", "spaces and caps", " Spaces And CAPS "} {
		n, report, err := w.Update(t.Context(), "spaces and caps.md", core.NoteUpdate{Title: &title})
		require.NoError(t, err)
		assert.Nil(t, report, "no rename for %q", title)
		assert.Equal(t, "Spaces And CAPS.md", n.Path)
	}
	assert.Equal(t, "[[Spaces And CAPS]] and [[spaces and caps|alias]]", readVaultFile(t, root, "linker.md"), "no link rewritten")
	tags := []string{"x"}
	title := "A Long Display Title"
	n, report, err := w.Update(t.Context(), "titled.md", core.NoteUpdate{Title: &title, Tags: &tags})
	require.NoError(t, err)
	assert.Nil(t, report)
	assert.Equal(t, "titled.md", n.ID)
	assert.Equal(t, "A Long Display Title", storeNote(t, store, "titled.md").Title)
	_, err = os.Stat(filepath.Join(root, "A Long Display Title.md"))
	assert.True(t, os.IsNotExist(err), "an echoed frontmatter title is not a rename")
}

func TestUnicodeFormsNameOneNote(t *testing.T) {
	nfd := "Cafe\u0301.md" // as macOS, iCloud and Dropbox often store it
	root, w, store := syncedWriter(t, map[string]string{nfd: "decomposed", "linker.md": "[[Caf\u00e9]]"})
	// The note's ID is NFC; a client may send either form.
	assert.NotNil(t, storeNote(t, store, "caf\u00e9.md"))
	for _, id := range []string{"caf\u00e9.md", "Cafe\u0301.md", "Caf\u00e9"} {
		got := core.IDCandidates(id)
		assert.Contains(t, got, "caf\u00e9.md", "IDCandidates(%q)", id)
	}
	assert.Equal(t, []string{"caf\u00e9.md"}, noteTargets(storeNote(t, store, "linker.md")))
	// A visually identical new note is refused.
	_, err := w.Create(t.Context(), core.NewNote{Title: "caf\u00e9", Content: "composed twin"})
	require.ErrorIs(t, err, core.ErrExists)
	_, err = w.CreateFile(t.Context(), "Caf\u00e9.md", []byte("composed twin"))
	require.ErrorIs(t, err, core.ErrExists)
	assert.Len(t, visible(t, root), 2, "no second, visually identical file")
	// A path in the other form reads and writes the note.
	raw, _, err := w.ReadFile("Caf\u00e9.md")
	require.NoError(t, err)
	assert.Equal(t, "decomposed", string(raw))
}

func TestLetterCaseOfPathsAndFolders(t *testing.T) {
	root, w, _ := syncedWriter(t, map[string]string{"Projects/Plan.md": "plan", "Notes/a.md": "", "notes2/B.md": ""})
	// A note path in the graph's lowercased form finds the note.
	raw, _, err := w.ReadFile("projects/plan.md")
	require.NoError(t, err)
	assert.Equal(t, "plan", string(raw))
	_, err = w.WriteFile(t.Context(), "projects/plan.md", []byte("plan v2"), "")
	require.NoError(t, err)
	assert.Equal(t, "plan v2", readVaultFile(t, root, "Projects/Plan.md"))
	// A folder in another letter case is the existing folder.
	n, err := w.Create(t.Context(), core.NewNote{Title: "Next", Directory: "projects", Content: "x"})
	require.NoError(t, err)
	assert.Equal(t, "Projects/Next.md", n.Path)
	assert.ElementsMatch(t, []string{"Projects", "Notes", "notes2"}, visible(t, root), "no twin folder")
	// Two folders matching one name in letter case: an error naming them.
	require.NoError(t, os.Mkdir(filepath.Join(root, "notes"), 0o755))
	_, err = w.Create(t.Context(), core.NewNote{Title: "y", Directory: "NOTES", Content: "x"})
	require.ErrorIs(t, err, core.ErrInvalidPath)
	assert.Contains(t, err.Error(), "Notes, notes")
}

func TestDirectoryArgumentsAreCleanedAndChecked(t *testing.T) {
	root, w, _ := syncedWriter(t, map[string]string{"Home.md": "home"})
	n, err := w.Create(t.Context(), core.NewNote{Title: "t", Directory: " Projects / 2024 ", Content: "x"})
	require.NoError(t, err)
	assert.Equal(t, "Projects/2024/t.md", n.Path, "blanks around names go, as from a title")
	for dir, why := range map[string]string{
		"CON":            "Windows reserves it",
		"a/nul.txt":      "Windows reserves it",
		"trailing.":      "ends with a blank or a dot",
		"a\u202eb":       "text-direction",
		"Home.md":        `"Home.md" is not allowed: it is a file, not a folder`,
		"Home.md/deeper": `"Home.md" is not allowed: it is a file, not a folder`,
		"ab:c":           `one of < > : " / \ | ? *`,
	} {
		_, err := w.Create(t.Context(), core.NewNote{Title: "t2", Directory: dir, Content: "x"})
		require.ErrorIs(t, err, core.ErrInvalidPath, dir)
		assert.Contains(t, err.Error(), why, dir)
	}
	_, err = w.CreateFile(t.Context(), "Home.md/x.md", []byte("x"))
	require.ErrorIs(t, err, core.ErrInvalidPath)
	assert.Contains(t, err.Error(), `"Home.md" is not allowed: it is a file, not a folder`)
	_, err = w.CreateFile(t.Context(), "LPT1.md", []byte("x"))
	require.ErrorIs(t, err, core.ErrInvalidPath)
	_, err = os.Stat(filepath.Join(root, "CON"))
	assert.True(t, os.IsNotExist(err))
}

func TestLongTitlesThatCollideGetDistinctFiles(t *testing.T) {
	_, w, _ := syncedWriter(t, map[string]string{})
	long := strings.Repeat("a very long title about graphs ", 8) // past MaxTitleFileNameBytes
	first, err := w.Create(t.Context(), core.NewNote{Title: long + "one", Content: "1"})
	require.NoError(t, err)
	second, err := w.Create(t.Context(), core.NewNote{Title: long + "two", Content: "2"})
	require.NoError(t, err, "two titles cut to one file name are told apart")
	assert.NotEqual(t, first.Path, second.Path)
	assert.Equal(t, long+"two", second.Title)
	_, err = w.Create(t.Context(), core.NewNote{Title: long + "one", Content: "again"})
	require.ErrorIs(t, err, core.ErrExists, "the same title again is NODE_EXISTS")
	// A short title whose file name another title took: the error says so.
	_, err = w.Create(t.Context(), core.NewNote{Title: "Q&A?", Content: "x"})
	require.NoError(t, err)
	_, err = w.Create(t.Context(), core.NewNote{Title: "Q&A:", Content: "x"})
	require.ErrorIs(t, err, core.ErrExists)
	assert.Contains(t, err.Error(), `the file name "Q&A-.md" is taken by the note "Q&A?"`)
}

func TestCreateKeepsLinksANewNoteWouldTakeOver(t *testing.T) {
	root, w, store := syncedWriter(t, map[string]string{
		"A/Target.md": "the one",
		"B/Source.md": "see [[Target]] and [[Target|t]]",
	})
	_, err := w.Create(t.Context(), core.NewNote{Title: "Target", Directory: "B", Content: "a newcomer"})
	require.NoError(t, err)
	assert.Equal(t, "see [[A/Target]] and [[A/Target|t]]", readVaultFile(t, root, "B/Source.md"))
	assert.Equal(t, []string{"a/target.md", "a/target.md"}, noteTargets(storeNote(t, store, "b/source.md")))
}

func TestRenameDoesNotRepointLinksToANoteWithTheSameName(t *testing.T) {
	root, w, store := syncedWriter(t, map[string]string{
		"A/Target.md": "a",
		"B/Target.md": "b",
		"B/Source.md": "[[Target]]",       // B/Target: same folder
		"C/Source.md": "[[Target]] [[X]]", // A/Target: shortest, then byte order
	})
	title := "Renamed"
	_, report, err := w.Update(t.Context(), "a/target.md", core.NoteUpdate{Title: &title})
	require.NoError(t, err)
	require.NotNil(t, report)
	assert.Equal(t, "[[Target]]", readVaultFile(t, root, "B/Source.md"), "a link to another note with that name is not touched")
	assert.Equal(t, []string{"b/target.md"}, noteTargets(storeNote(t, store, "b/source.md")))
	assert.Equal(t, "[[Renamed]] [[X]]", readVaultFile(t, root, "C/Source.md"))
}

// visible lists the names in folder dir that are not hidden.
func visible(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	return names
}
