package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
)

// symlinkRaceEnv overrides how long TestSymlinkSwapsNeverLeakOrEscape
// swaps ("make soak" sets 60s).
const symlinkRaceEnv = "VAULTGRAPH_SYMLINK_RACE"

// outsideCanary is what the files outside the vault hold; no answer may carry it.
const outsideCanary = "CANARY-outside-the-vault"

// TestSymlinkSwapsNeverLeakOrEscape swaps, at full speed, a folder of the
// vault for a symbolic link to a folder outside it and a note for a link
// to an outside file, a knowledge base's folder_constraints folder and a
// folder outside every knowledge base for links too, while three clients
// of one "serve --http" call every tool of the graph and kb toolsets that
// takes a path: writes (create, update, append, move, delete; knowledge
// bases and constraints, which create folders and metadata) and reads
// (read_note, validate_note, get_node, list_notes). Not one file may
// appear outside the vault, and not one answer may carry the outside
// file's content.
func TestSymlinkSwapsNeverLeakOrEscape(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	t.Parallel()
	duration := 4 * time.Second
	if v, err := time.ParseDuration(os.Getenv(symlinkRaceEnv)); err == nil && v > 0 {
		duration = v
	}
	vault := filepath.Join(t.TempDir(), "vault")
	outside := filepath.Join(t.TempDir(), "outside")
	writeFile(t, outside, "n.md", outsideCanary)
	writeFile(t, outside, "deep/n.md", outsideCanary)
	writeFile(t, vault, "inbox/n.md", "the real note")
	writeFile(t, vault, "Home.md", "home")
	st := embeddedStore(t)
	h := startHTTP(t, st, vault, "127.0.0.1:0")
	outsideMeta := filepath.Join(t.TempDir(), "meta")
	outsideFree := filepath.Join(t.TempDir(), "free")
	for _, d := range []string{outsideMeta, outsideFree} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, vault, "free/keep.md", "a folder in no knowledge base")
	callKB := func(c *client.Client) {
		r := callTool(t, c, "add_knowledge_base", map[string]any{"name": "inbox", "description": "swapped", "subfolder": "inbox", "organization_rules": "none"})
		if r.isError {
			t.Fatalf("add_knowledge_base: %s", r.text)
		}
		r = callTool(t, c, "add_knowledge_base_folder_constraint", map[string]any{"kb_name": "inbox", "subfolder": "inbox", "rules": map[string]any{"filename": map[string]any{"pattern": "md$"}}})
		if r.isError {
			t.Fatalf("add_knowledge_base_folder_constraint: %s", r.text)
		}
	}
	// swapDir swaps dir for a link to target and back; when a tool made
	// the folder again while it was missing (inside the vault: fine), that
	// one is dropped so that the real one can come back.
	swapDir := func(dir, target string) {
		_ = os.Rename(dir, dir+".real")
		_ = os.Symlink(target, dir)
		runtime.Gosched()
		_ = os.Remove(dir)
		if os.Rename(dir+".real", dir) != nil {
			_ = os.RemoveAll(dir)
			_ = os.Rename(dir+".real", dir)
		}
	}

	clients := make([]*client.Client, 3)
	for i := range clients {
		clients[i] = httpClient(t, h.url(), rwToken)
		initialize(t, clients[i])
	}
	callKB(clients[0])

	var stop atomic.Bool
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() { // the attacker
		dir, note := filepath.Join(vault, "inbox"), filepath.Join(vault, "inbox", "n.md")
		for !stop.Load() {
			_ = os.Rename(note, note+".real")
			_ = os.Symlink(filepath.Join(outside, "n.md"), note)
			runtime.Gosched()
			_ = os.Remove(note)
			_ = os.Rename(note+".real", note)
			swapDir(dir, outside)
			swapDir(filepath.Join(vault, ".llm_bridges", "knowledge_base", "inbox", "folder_constraints"), outsideMeta)
			swapDir(filepath.Join(vault, "free"), outsideFree)
			swaps.Add(1)
		}
	})

	var calls, leaks atomic.Int64
	for i, c := range clients {
		wg.Go(func() {
			deadline := time.Now().Add(duration)
			for n := 0; time.Now().Before(deadline); n++ {
				name := "c" + strconv.Itoa(i) + "-" + strconv.Itoa(n)
				for _, call := range []struct {
					tool string
					args map[string]any
				}{
					{"create_node", map[string]any{"title": name, "directory": "inbox", "content": "x"}},
					{"create_node", map[string]any{"title": name, "directory": "inbox/deep", "content": "x"}},
					{"update_node", map[string]any{"id": "inbox/n.md", "tags": []string{"t" + name}}},
					{"get_node", map[string]any{"id": "inbox/n.md"}},
					{"create_note", map[string]any{"knowledge_base_name": "inbox", "note_path": name + ".md", "note_content": "x"}},
					{"read_note", map[string]any{"knowledge_base_name": "inbox", "note_path": "n.md"}},
					{"validate_note", map[string]any{"knowledge_base_name": "inbox", "note_path": "n.md"}},
					{"append_note", map[string]any{"knowledge_base_name": "inbox", "note_path": "n.md", "note_content": "more"}},
					{"move_note", map[string]any{"knowledge_base_name": "inbox", "origin_note_path": name + ".md", "new_note_path": "deep/" + name + ".md"}},
					{"list_notes", map[string]any{"knowledge_base_name": "inbox"}},
					{"list_notes", map[string]any{"knowledge_base_name": "inbox", "subfolder": "deep"}},
					{"update_note", map[string]any{"knowledge_base_name": "inbox", "note_path": "n.md", "note_content": "rewritten"}},
					{"delete_note", map[string]any{"knowledge_base_name": "inbox", "note_path": "deep/" + name + ".md"}},
					{"add_knowledge_base_folder_constraint", map[string]any{"kb_name": "inbox", "subfolder": "inbox/deep", "rules": map[string]any{"filename": map[string]any{"pattern": "md$"}}}},
					{"update_knowledge_base", map[string]any{"name": "inbox", "subfolder": "inbox/" + name}},
					{"update_knowledge_base", map[string]any{"name": "inbox", "subfolder": "inbox"}},
					{"add_knowledge_base", map[string]any{"name": "free-" + name, "description": "d", "subfolder": "free/" + name, "organization_rules": "none"}},
					{"delete_node", map[string]any{"id": "inbox/" + strings.ToLower(name) + ".md"}},
				} {
					r, err := tryCall(t, c, call.tool, call.args)
					calls.Add(1)
					if err == nil && strings.Contains(r.text, outsideCanary) {
						leaks.Add(1)
						t.Errorf("%s answered the outside file's content: %.200s", call.tool, r.text)
					}
				}
			}
		})
	}
	time.Sleep(duration)
	stop.Store(true)
	wg.Wait()

	var escaped []string
	_ = filepath.Walk(outside, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			if rel, _ := filepath.Rel(outside, p); rel != "n.md" && rel != filepath.Join("deep", "n.md") {
				escaped = append(escaped, rel)
			}
		}
		return nil
	})
	for _, d := range []string{outsideMeta, outsideFree} {
		_ = filepath.Walk(d, func(p string, info os.FileInfo, err error) error {
			if err == nil && p != d {
				escaped = append(escaped, p)
			}
			return nil
		})
	}
	for _, f := range []string{"n.md", "deep/n.md"} {
		if got := readFile(t, outside, f); got != outsideCanary {
			t.Errorf("the outside file %s was written: %q", f, got)
		}
	}
	t.Logf("symlink race: %d swaps of a folder and a note for links out of the vault during %d tool calls from 3 clients: %d files outside, %d answers with outside content",
		swaps.Load(), calls.Load(), len(escaped), leaks.Load())
	if len(escaped) > 0 {
		t.Fatalf("files written outside the vault: %v", escaped[:min(10, len(escaped))])
	}
	_ = fmt.Sprint()
}
