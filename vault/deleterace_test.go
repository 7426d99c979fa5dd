package vault

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDeleteNodeRacesAnEditorCreatingInItsFolder: an outside editor saves
// a new file into the folder of a note while delete_node removes that
// note, the folder's last file (delete_node then removes the folders it
// emptied). Whoever wins, nothing of the editor's is lost: its file is
// there whole, its folder stays, the delete reports no error, and a sync
// finds the editor's note. The editor saves as editors do (make the folder,
// then create the file), and saves again when the folder went between the
// two (the only way the race shows to it: a create that finds no folder,
// never a partial file). Both start at one signal, many times over, since
// the window is a few system calls wide; VAULTGRAPH_SOAK=1 runs 4,000.
func TestDeleteNodeRacesAnEditorCreatingInItsFolder(t *testing.T) {
	runs := 150
	if os.Getenv("VAULTGRAPH_SOAK") != "" {
		runs = 4000
	}
	files := map[string]string{"Hub.md": "the hub"}
	for i := range runs {
		files[fmt.Sprintf("box-%04d/sub/Last.md", i)] = "the last note [[Hub]]"
	}
	root, w, store := syncedWriter(t, files)
	ctx := t.Context()

	retried := 0
	for i := range runs {
		// Half the editors write beside the deleted note, half one folder
		// up (which the delete tries to remove next).
		dir := fmt.Sprintf("box-%04d/sub", i)
		if i%2 == 1 {
			dir = fmt.Sprintf("box-%04d", i)
		}
		rel := dir + "/Editor.md"
		body := fmt.Sprintf("the editor's note %d, saved whole [[Hub]]\n", i)
		abs := filepath.Join(root, filepath.FromSlash(rel))

		start := make(chan struct{})
		var wg sync.WaitGroup
		var delErr, editErr error
		var deleted bool
		tries := 0
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			deleted, delErr = w.Delete(ctx, fmt.Sprintf("box-%04d/sub/last.md", i))
		}()
		go func() {
			defer wg.Done()
			<-start
			for tries < 100 {
				tries++
				if editErr = os.MkdirAll(filepath.Dir(abs), 0o755); editErr != nil {
					return
				}
				editErr = os.WriteFile(abs, []byte(body), 0o644)
				if !errors.Is(editErr, fs.ErrNotExist) {
					return
				}
			}
		}()
		close(start)
		wg.Wait()

		require.NoError(t, delErr, "run %d: the delete", i)
		require.True(t, deleted, "run %d", i)
		require.NoError(t, editErr, "run %d: the editor's save (%d tries)", i, tries)
		got, err := os.ReadFile(abs)
		require.NoError(t, err, "run %d: the editor's file is gone", i)
		require.Equal(t, body, string(got), "run %d: the editor's file is not whole", i)
		_, err = os.Stat(filepath.Join(root, fmt.Sprintf("box-%04d/sub/Last.md", i)))
		require.ErrorIs(t, err, fs.ErrNotExist, "run %d: the deleted note is back", i)
		if tries > 1 {
			retried++
		}
	}
	_, err := w.m.Sync(ctx)
	require.NoError(t, err)
	for i := range runs {
		dir := fmt.Sprintf("box-%04d/sub", i)
		if i%2 == 1 {
			dir = fmt.Sprintf("box-%04d", i)
		}
		n := storeNote(t, store, dir+"/editor.md")
		require.NotNil(t, n, "run %d: the sync does not find the editor's note", i)
		assert.Equal(t, []string{"hub.md"}, noteTargets(n))
		assert.Nil(t, storeNote(t, store, fmt.Sprintf("box-%04d/sub/last.md", i)))
	}
	assert.Empty(t, tempFiles(t, root))
	t.Logf("%d races: the editor's create found its folder removed (and saved again) %d times", runs, retried)
}
