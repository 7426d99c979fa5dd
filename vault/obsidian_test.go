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
// trash holds already, or deletes it ("none"); folders left empty stay.
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
			require.NoError(t, err, "the folder left empty stays, as in Obsidian")
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
