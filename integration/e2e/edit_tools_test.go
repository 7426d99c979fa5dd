package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
)

// editAnswer is edit_note's answer.
type editAnswer struct {
	ID, Path, Version, Diff string
	Changed                 bool
}

// recentChange is one change of recent_changes' answer.
type recentChange struct {
	At, Kind, ID, Path, Title, Summary string
	OldPath                            string `json:"old_path"`
}

func recentLines(t *testing.T, c *client.Client, limit int) []string {
	t.Helper()
	var page struct {
		Changes []recentChange `json:"changes"`
	}
	callTool(t, c, "recent_changes", map[string]any{"limit": limit}).decode(t, &page)
	var out []string
	for _, ch := range page.Changes {
		s := ch.Kind + " " + ch.Path
		if ch.OldPath != "" {
			s += " from " + ch.OldPath
		}
		out = append(out, s)
	}
	return out
}

// TestEditToolsOverEveryTransportAndStore: edit_note changes one section
// of a note and nothing else, a stale expected_version writes nothing,
// and recent_changes lists exactly the changes made through the tools
// and on disk (seen by the watcher), newest first, also after a restart.
func TestEditToolsOverEveryTransportAndStore(t *testing.T) {
	t.Parallel()
	extra := map[string]string{
		"edit/log.md": "---\n# a comment\nstatus: open\n---\n# Log\n\n## Today\n- a\n\n## Later\n- z\n",
		"edit/b.md":   "# B\n",
		"edit/c.md":   "# C\nsea\n",
	}
	forEachStoreSharing(t, func(t *testing.T, st store) {
		for _, tr := range transports {
			t.Run(tr, func(t *testing.T) {
				if st.neo4j == nil {
					st = embeddedStore(t) // a state of this transport's own
				}
				vault := copyVault(t, extra)
				want := []string{
					"deleted edit/log.md",
					"renamed edit/c2.md from edit/c.md",
					"modified edit/b.md",
					"modified edit/log.md",
				}
				t.Run("edits", func(t *testing.T) {
					c := connect(t, st, vault, tr)
					if got := recentLines(t, c, 10); len(got) != 0 {
						t.Fatalf("the first sync logged %q", got)
					}
					var ans editAnswer
					callTool(t, c, "edit_note", map[string]any{"id": "edit/log", "operation": "append", "heading": "Today", "content": "- b"}).decode(t, &ans)
					wantLog := strings.Replace(extra["edit/log.md"], "- a\n", "- a\n- b\n", 1)
					if got := readFile(t, vault, "edit/log.md"); got != wantLog {
						t.Fatalf("after edit_note:\n%q\nwant\n%q", got, wantLog)
					}
					if !ans.Changed || ans.Path != "edit/log.md" || !strings.Contains(ans.Diff, "\n+- b\n") {
						t.Errorf("answer %+v", ans)
					}
					wantCode(t, c, "VERSION_CONFLICT", "edit_note", map[string]any{"id": "edit/log.md", "operation": "remove_frontmatter", "key": "status", "expected_version": strings.Repeat("0", 64)})
					wantCode(t, c, "INVALID_PARAMS", "edit_note", map[string]any{"id": "edit/log.md", "operation": "append", "heading": "Tomorrow", "content": "x"})
					wantCode(t, c, "NODE_NOT_FOUND", "edit_note", map[string]any{"id": "edit/none.md", "operation": "append", "content": "x"})
					if got := readFile(t, vault, "edit/log.md"); got != wantLog {
						t.Fatalf("a refused edit wrote:\n%q", got)
					}

					// Outside vaultgraph: an editor's save, a file manager's move.
					writeFile(t, vault, "edit/b.md", "# B\nbee\n")
					now := time.Now() // the kernel's coarse file clock may lag the tool's write
					_ = os.Chtimes(filepath.Join(vault, "edit", "b.md"), now, now)
					if !eventually(watchTimeout, func() bool { return len(recentLines(t, c, 10)) == 2 }) {
						t.Fatalf("the watcher did not log b.md: %q", recentLines(t, c, 10))
					}
					if err := os.Rename(filepath.Join(vault, "edit", "c.md"), filepath.Join(vault, "edit", "c2.md")); err != nil {
						t.Fatal(err)
					}
					if !eventually(watchTimeout, func() bool { return len(recentLines(t, c, 10)) == 3 }) {
						t.Fatalf("the watcher did not log the rename: %q", recentLines(t, c, 10))
					}
					callTool(t, c, "delete_node", map[string]any{"id": "edit/log.md"})
					if got := recentLines(t, c, 10); !slices.Equal(got, want) {
						t.Fatalf("recent_changes:\n got %q\nwant %q", got, want)
					}
				})
				t.Run("after a restart", func(t *testing.T) {
					c := connect(t, st, vault, tr)
					if got := recentLines(t, c, 10); !slices.Equal(got, want) {
						t.Fatalf("recent_changes after a restart:\n got %q\nwant %q", got, want)
					}
				})
			})
		}
	})
}
