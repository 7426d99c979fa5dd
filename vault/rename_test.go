package vault

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

func TestRenameRewritesLinks(t *testing.T) {
	linker := "---\nowner: \"[[Old]]\"\n---\n" +
		"[[Old]] [[Old|alias]] [[Old#Heading]] [[Old#^block|b]] ![[Old]] ![[Old#^block]]\n" +
		"[[folder/Old]] [[/folder/Old.md|x]] [[ Old ]]\n" +
		"| table | [[Old\\|t]] |\n" +
		"[md](folder/Old.md#Part%20one) [angle](<folder/Old.md>) ![emb](./folder/Old.md)\n" +
		"`[[Old]]` in code, [[deeper/Old]] is another note, [[Oldish]] is not it.\n"
	root, w, store := syncedWriter(t, map[string]string{
		"linker.md":            linker,
		"folder/Old.md":        "I am old. Self: [[Old#top]]. Sibling: [s](sibling.md) [up](../linker.md) [abs](/linker.md)",
		"folder/sibling.md":    "sibling",
		"others/deeper/Old.md": "a different note with the same name",
		"Oldish.md":            "",
	})
	report, err := w.Rename(t.Context(), "folder/Old.md", "dest/New Name.md")
	require.NoError(t, err)
	assert.Equal(t, core.RenameReport{OldID: "folder/old.md", NewID: "dest/new name.md", FilesChanged: 2, LinksChanged: 15,
		Relinked: []core.Relinked{{ID: "linker.md", Path: "linker.md", Links: 14}}}, *report)

	want := "---\nowner: \"[[New Name]]\"\n---\n" +
		"[[New Name]] [[New Name|alias]] [[New Name#Heading]] [[New Name#^block|b]] ![[New Name]] ![[New Name#^block]]\n" +
		"[[New Name]] [[/dest/New Name.md|x]] [[ New Name ]]\n" +
		"| table | [[New Name\\|t]] |\n" +
		"[md](New%20Name.md#Part%20one) [angle](<New Name.md>) ![emb](./dest/New%20Name.md)\n" +
		"`[[Old]]` in code, [[deeper/Old]] is another note, [[Oldish]] is not it.\n"
	assert.Equal(t, want, readVaultFile(t, root, "linker.md"))
	assert.Equal(t, "I am old. Self: [[New Name#top]]. Sibling: [s](sibling.md) [up](../linker.md) [abs](/linker.md)",
		readVaultFile(t, root, "dest/New Name.md"), "the moved note's own links follow it")

	n := storeNote(t, store, "linker.md")
	require.NotNil(t, n)
	for _, l := range n.Links {
		switch l.Key {
		case "deeper/old":
			assert.Equal(t, "others/deeper/old.md", l.Target)
		case "oldish":
			assert.Equal(t, "oldish.md", l.Target)
		default:
			assert.Equal(t, "dest/new name.md", l.Target, l.Raw)
		}
	}
	moved := storeNote(t, store, "dest/new name.md")
	require.NotNil(t, moved)
	assert.Equal(t, []string{"dest/new name.md", "folder/sibling.md", "linker.md", "linker.md"}, noteTargets(moved))
	assert.Nil(t, storeNote(t, store, "folder/old.md"))
	assert.Empty(t, tempFiles(t, root))
}

// TestRenameKeepsEachLinkForm: every form Obsidian resolves follows a
// renamed note in its own form: markdown stays markdown (URL-encoded or in
// <>, with or without ".md", its text, heading and title kept), relative
// stays relative, "/" stays vault-absolute, by name stays by name.
func TestRenameKeepsEachLinkForm(t *testing.T) {
	root, w, store := syncedWriter(t, map[string]string{
		"A/Note Name.md": "target",
		"A/Sib.md":       "[[./Note Name]] [s](Note%20Name.md) [[Note Name#H|h]]",
		"B/r.md": "[[../A/Note Name]] [r](../A/Note%20Name.md#H \"title\") [k](A/Note%20Name) " +
			"[y](<A/Note Name.md#Heading>) [a](/A/Note%20Name.md) ![e](../A/Note%20Name.md#^blk)",
		"C/Other.md": "[[Other]] [o](./Other.md)",
	})
	report, err := w.Rename(t.Context(), "A/Note Name.md", "C/Moved Here.md")
	require.NoError(t, err)
	assert.Equal(t, []core.Relinked{{ID: "a/sib.md", Path: "A/Sib.md", Links: 3}, {ID: "b/r.md", Path: "B/r.md", Links: 6}}, report.Relinked,
		"the answer lists every other note rewritten")
	assert.Equal(t, "[[../C/Moved Here]] [s](Moved%20Here.md) [[Moved Here#H|h]]", readVaultFile(t, root, "A/Sib.md"))
	assert.Equal(t, "[[../C/Moved Here]] [r](../C/Moved%20Here.md#H \"title\") [k](Moved%20Here) "+
		"[y](<Moved Here.md#Heading>) [a](/C/Moved%20Here.md) ![e](../C/Moved%20Here.md#^blk)", readVaultFile(t, root, "B/r.md"))
	assert.Equal(t, "[[Other]] [o](./Other.md)", readVaultFile(t, root, "C/Other.md"))
	for _, id := range []string{"a/sib.md", "b/r.md"} {
		for _, tg := range noteTargets(storeNote(t, store, id)) {
			assert.Equal(t, "c/moved here.md", tg, id)
		}
	}

	// The moving note's own relative links start from its new folder.
	root, w, _ = syncedWriter(t, map[string]string{
		"A/X.md":   "[[./Sib]] [s](./Sib.md) [u](../Top.md) [[../Gone]] [[Sib]]",
		"A/Sib.md": "",
		"Top.md":   "",
	})
	_, err = w.Rename(t.Context(), "A/X.md", "B/C/X.md")
	require.NoError(t, err)
	assert.Equal(t, "[[../../A/Sib]] [s](../../A/Sib.md) [u](../../Top.md) [[../../Gone]] [[Sib]]", readVaultFile(t, root, "B/C/X.md"))
}

func TestRenameToAnAmbiguousNameUsesThePath(t *testing.T) {
	root, w, store := syncedWriter(t, map[string]string{
		"a.md":       "[[Unique]]",
		"Unique.md":  "",
		"x/Taken.md": "another note called Taken",
	})
	_, err := w.Rename(t.Context(), "Unique.md", "y/Taken.md")
	require.NoError(t, err)
	assert.Equal(t, "[[y/Taken]]", readVaultFile(t, root, "a.md"))
	assert.Equal(t, []string{"y/taken.md"}, noteTargets(storeNote(t, store, "a.md")))
}

func TestRenameErrors(t *testing.T) {
	root, w, _ := syncedWriter(t, map[string]string{"a.md": "a", "b.md": "b"})
	_, err := w.Rename(t.Context(), "missing.md", "c.md")
	require.ErrorIs(t, err, core.ErrNotFound)
	_, err = w.Rename(t.Context(), "a.md", "b.md")
	require.ErrorIs(t, err, core.ErrExists)
	_, err = w.Rename(t.Context(), "a.md", "B.md")
	require.ErrorIs(t, err, core.ErrExists, "a path differing only by case")
	assert.Equal(t, "a", readVaultFile(t, root, "a.md"))
	assert.Equal(t, "b", readVaultFile(t, root, "b.md"))

	report, err := w.Rename(t.Context(), "a.md", "a.md")
	require.NoError(t, err)
	assert.Equal(t, core.RenameReport{OldID: "a.md", NewID: "a.md"}, *report)
}

func TestCaseOnlyRename(t *testing.T) {
	root, w, store := syncedWriter(t, map[string]string{"Note.md": "x", "l.md": "[[Note]]"})
	report, err := w.Rename(t.Context(), "Note.md", "note.md")
	require.NoError(t, err)
	assert.Equal(t, "note.md", report.NewID)
	assert.Equal(t, "[[note]]", readVaultFile(t, root, "l.md"))
	n := storeNote(t, store, "note.md")
	require.NotNil(t, n)
	assert.Equal(t, "note.md", n.Path)
}

func TestRelPath(t *testing.T) {
	tests := []struct{ dir, target, want string }{
		{".", "a.md", "a.md"},
		{"", "x/a.md", "x/a.md"},
		{"x", "x/a.md", "a.md"},
		{"x/y", "a.md", "../../a.md"},
		{"x/y", "x/z/a.md", "../z/a.md"},
		{"a", "a", "../a"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, relPath(tc.dir, tc.target), "%s → %s", tc.dir, tc.target)
	}
}
