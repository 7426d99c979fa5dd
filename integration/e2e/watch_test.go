package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestLiveEdits: while serve runs, files written, edited, moved and
// deleted in the vault by another program reach the store through the
// watcher (within watchTimeout), on both stores.
func TestLiveEdits(t *testing.T) {
	t.Parallel()
	forEachStoreSharing(t, func(t *testing.T, st store) {
		vault := copyVault(t, nil)
		c := startStdio(t, st, vault)
		waitNode := func(t *testing.T, id string, ok func(n *node) bool) {
			t.Helper()
			var last *node
			if !eventually(watchTimeout, func() bool { last = getNode(t, c, map[string]any{"id": id}); return ok(last) }) {
				t.Fatalf("get_node %s did not reach the expected state within %s: %+v", id, watchTimeout, last)
			}
		}

		writeFile(t, vault, "live/New Idea.md", "---\ntags: [live]\n---\nLinks [[Home]].")
		waitNode(t, "live/new idea.md", func(n *node) bool {
			return n != nil && slices.Equal(n.Tags, []string{"live"}) && len(n.Links) == 1 && n.Links[0].ID == "home.md"
		})

		writeFile(t, vault, "live/New Idea.md", "Edited, links [[BM25]].")
		waitNode(t, "live/new idea.md", func(n *node) bool {
			return n != nil && n.Content == "Edited, links [[BM25]]." && len(n.Tags) == 0 && len(n.Links) == 1 && n.Links[0].ID == "concepts/bm25.md"
		})

		if err := os.Rename(filepath.Join(vault, "live", "New Idea.md"), filepath.Join(vault, "live", "Moved Idea.md")); err != nil {
			t.Fatal(err)
		}
		waitNode(t, "live/moved idea.md", func(n *node) bool { return n != nil && n.Title == "Moved Idea" })
		waitNode(t, "live/new idea.md", func(n *node) bool { return n == nil })

		if err := os.Remove(filepath.Join(vault, "live", "Moved Idea.md")); err != nil {
			t.Fatal(err)
		}
		waitNode(t, "live/moved idea.md", func(n *node) bool { return n == nil })
	})
}
