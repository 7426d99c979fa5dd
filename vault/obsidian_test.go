package vault

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDeleteFollowsTrashOption: a delete moves the note to the vault's
// .trash (Obsidian's "system" default and "local"), numbering names the
// trash holds already, or deletes it ("none"); folders left empty go.
func TestDeleteFollowsTrashOption(t *testing.T) {
	for _, tc := range []struct {
		name, settings string
		trashed        bool
	}{
		{"no settings file: Obsidian's default (system)", "", true},
		{"system", `{"trashOption": "system"}`, true},
		{"local", `{"trashOption":"local","useMarkdownLinks":true}`, true},
		{"none", `{"trashOption":"none"}`, false},
		{"not JSON: defaults", `{trashOption: none`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"a/Gone.md": "first", "b/Gone.md": "second", "link.md": "[[a/Gone]]"}
			if tc.settings != "" {
				files[".obsidian/app.json"] = tc.settings
			}
			root, w, store := syncedWriter(t, files)
			for _, id := range []string{"a/gone.md", "b/gone.md"} {
				ok, err := w.Delete(t.Context(), id)
				require.NoError(t, err)
				require.True(t, ok)
				assert.Nil(t, storeNote(t, store, id))
			}
			_, err := os.Stat(filepath.Join(root, "a"))
			require.True(t, os.IsNotExist(err), "the folder the delete left empty is gone")
			trash := filepath.Join(root, ".trash")
			if !tc.trashed {
				_, err := os.Stat(trash)
				assert.True(t, os.IsNotExist(err), "nothing trashed")
				return
			}
			assert.Equal(t, "first", readVaultFile(t, root, ".trash/Gone.md"))
			assert.Equal(t, "second", readVaultFile(t, root, ".trash/Gone 1.md"))
		})
	}
}

// TestRenameFollowsNewLinkFormat: a link written by name or path that
// follows a renamed note gets the text the vault's newLinkFormat gives;
// relative, "/" and markdown forms keep their own.
func TestRenameFollowsNewLinkFormat(t *testing.T) {
	for _, tc := range []struct {
		format, want string
	}{
		{"", "[[New]] [p](New.md) [[../d/New]] [[/d/New.md]]"},
		{"shortest", "[[New]] [p](New.md) [[../d/New]] [[/d/New.md]]"},
		{"absolute", "[[d/New]] [p](d/New.md) [[../d/New]] [[/d/New.md]]"},
		{"relative", "[[../d/New]] [p](../d/New.md) [[../d/New]] [[/d/New.md]]"},
	} {
		t.Run(tc.format, func(t *testing.T) {
			files := map[string]string{
				"a/Old.md":  "",
				"b/link.md": "[[Old]] [p](a/Old.md) [[../a/Old]] [[/a/Old.md]]",
			}
			if tc.format != "" {
				files[".obsidian/app.json"] = `{"newLinkFormat":"` + tc.format + `"}`
			}
			root, w, store := syncedWriter(t, files)
			_, err := w.Rename(t.Context(), "a/Old.md", "d/New.md")
			require.NoError(t, err)
			assert.Equal(t, tc.want, readVaultFile(t, root, "b/link.md"))
			assert.Equal(t, []string{"d/new.md", "d/new.md", "d/new.md", "d/new.md"}, noteTargets(storeNote(t, store, "b/link.md")))
		})
	}
}

// TestDeleteNodeLeavesNoEmptyFolder: delete_node removes the folders it
// left empty, up to the first that holds anything, never the root nor the
// folder new notes go to; the path-based delete (kb's delete_note) keeps
// its folders (a knowledge base's folders are its scope).
func TestDeleteNodeLeavesNoEmptyFolder(t *testing.T) {
	root, w, _ := syncedWriter(t, map[string]string{
		"a/b/c/Deep.md":      "deep",
		"a/Keep.md":          "keeps a",
		"h/i/Hidden.md":      "x",
		"h/i/.keep":          "a hidden file",
		"Inbox/x/Only.md":    "x",
		"kb/sub/Note.md":     "x",
		"Root.md":            "root",
		".obsidian/app.json": `{"newFileLocation":"folder","newFileFolderPath":"Inbox"}`,
	})
	for _, id := range []string{"a/b/c/deep.md", "h/i/hidden.md", "inbox/x/only.md", "root.md"} {
		ok, err := w.Delete(t.Context(), id)
		require.NoError(t, err)
		require.True(t, ok)
	}
	exists := func(rel string) bool {
		_, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
		return err == nil
	}
	assert.False(t, exists("a/b"), "a/b/c and a/b went")
	assert.True(t, exists("a/Keep.md"))
	assert.True(t, exists("h/i"), "a folder with a hidden file stays")
	assert.False(t, exists("Inbox/x"))
	assert.True(t, exists("Inbox"), "the new-note folder stays")
	assert.True(t, exists("."), "the root stays")
	require.NoError(t, w.DeleteFile(t.Context(), "kb/sub/Note.md"))
	assert.True(t, exists("kb/sub"), "the path-based delete keeps its folder")
}
