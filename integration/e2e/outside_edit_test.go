package e2e

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// outsideEditsEnv overrides how many edits the editor of
// TestOutsideEditsAreNeverLost makes ("make soak" sets 10000).
const outsideEditsEnv = "VAULTGRAPH_OUTSIDE_EDITS"

// TestOutsideEditsAreNeverLost runs an editor beside "vaultgraph serve":
// every few milliseconds it appends a line to a note, in place, as
// Obsidian and most editors save, while the server's tools rewrite those
// same notes: update_node (tags only), append_note, and renames whose
// rewritten referrers the editor is editing. Every line the editor wrote
// must be in its note at the end.
func TestOutsideEditsAreNeverLost(t *testing.T) {
	t.Parallel()
	edits := 1000
	if v, err := strconv.Atoi(os.Getenv(outsideEditsEnv)); err == nil && v > 0 {
		edits = v
	}
	vault := filepath.Join(t.TempDir(), "vault")
	const tagged, appended, referrers = 10, 10, 60
	var targets []string
	for i := range tagged {
		rel := fmt.Sprintf("tagged/t%d.md", i)
		writeFile(t, vault, rel, fmt.Sprintf("---\ntags: [start]\n---\ntagged note %d\n", i))
		targets = append(targets, rel)
	}
	for i := range appended {
		rel := fmt.Sprintf("kb/a%d.md", i)
		writeFile(t, vault, rel, fmt.Sprintf("appended note %d\n", i))
		targets = append(targets, rel)
	}
	writeFile(t, vault, "hub/hub-0.md", "the hub")
	for i := range referrers {
		rel := fmt.Sprintf("refs/r%d.md", i)
		writeFile(t, vault, rel, fmt.Sprintf("ref %d links [[hub-0]]\n", i))
		targets = append(targets, rel)
	}
	st := embeddedStore(t)
	c := startStdio(t, st, vault)
	callTool(t, c, "add_knowledge_base", map[string]any{"name": "kb", "description": "appended notes", "subfolder": "kb"})

	// The editor: a line at a time, opened, appended, closed.
	var written sync.Map // line → note
	var count atomic.Int64
	stop := make(chan struct{})
	editorDone := make(chan struct{})
	go func() {
		defer close(editorDone)
		rng := rand.New(rand.NewPCG(1, 2))
		for i := 0; i < edits; i++ {
			select {
			case <-stop:
				return
			case <-time.After(time.Duration(1+rng.IntN(3)) * time.Millisecond):
			}
			rel := targets[rng.IntN(len(targets))]
			line := fmt.Sprintf("editor line %d\n", i)
			f, err := os.OpenFile(filepath.Join(vault, filepath.FromSlash(rel)), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Errorf("editor: %v", err)
				return
			}
			if _, err := f.WriteString(line); err == nil {
				written.Store(line, rel)
				count.Add(1)
			}
			_ = f.Close()
		}
	}()

	// The tools, as fast as they answer, until the editor is done.
	rng := rand.New(rand.NewPCG(3, 4))
	calls, hub := 0, 0
	for done := false; !done; calls++ {
		select {
		case <-editorDone:
			done = true
		default:
		}
		switch k := rng.IntN(10); {
		case k < 4:
			id := fmt.Sprintf("tagged/t%d.md", rng.IntN(tagged))
			callTool(t, c, "update_node", map[string]any{"id": id, "tags": []string{"tag" + strconv.Itoa(calls)}})
		case k < 8:
			callTool(t, c, "append_note", map[string]any{"knowledge_base_name": "kb", "note_path": fmt.Sprintf("a%d.md", rng.IntN(appended)), "note_content": fmt.Sprintf("tool line %d", calls)})
		default:
			callTool(t, c, "update_node", map[string]any{"id": fmt.Sprintf("hub/hub-%d.md", hub), "title": fmt.Sprintf("hub-%d", hub+1)})
			hub++
		}
	}
	close(stop)
	lost := 0
	written.Range(func(k, v any) bool {
		line, rel := k.(string), v.(string)
		if !strings.Contains(readFile(t, vault, rel), line) {
			lost++
			if lost <= 5 {
				t.Errorf("lost %q of %s", strings.TrimSpace(line), rel)
			}
		}
		return true
	})
	// The renames followed: every referrer links to the hub's last name.
	for i := range referrers {
		if body := readFile(t, vault, fmt.Sprintf("refs/r%d.md", i)); !strings.Contains(body, fmt.Sprintf("[[hub-%d]]", hub)) {
			t.Errorf("refs/r%d.md does not link to hub-%d: %q", i, hub, body)
		}
	}
	t.Logf("outside edits: the editor wrote %d lines while %d tool calls rewrote the same notes (%d renames of a note with %d referrers); %d lost", count.Load(), calls, hub, referrers, lost)
	if count.Load() < int64(edits)*9/10 {
		t.Fatalf("the editor made only %d edits", count.Load())
	}
}
