package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// canvasCrashRunsEnv overrides the number of runs of
// TestCrashDuringRenameKeepsCanvasesWhole (VAULTGRAPH_SOAK=1: 150).
const (
	canvasCrashRunsEnv    = "VAULTGRAPH_CANVAS_CRASH_RUNS"
	defaultCanvasCrashRun = 10
	canvasReferrers       = 100 // notes
	canvasBoards          = 60  // canvases
)

// board is a canvas that points at the hub by a file card and by links in
// a text card, with cards, an edge label and escapes that a rename must
// leave alone; Obsidian's tab-indented layout.
func board(i int, hub string) string {
	text := fmt.Sprintf("Board %d: see [[%s]] and [[%s#Part|the hub]], \"quoted\" é\n\tnot [[Elsewhere]]", i, hub, hub)
	enc, _ := json.Marshal(text)
	return "{\n\t\"nodes\":[\n" +
		"\t\t{\"id\":\"f\",\"type\":\"file\",\"file\":\"hub/" + hub + ".md\",\"subpath\":\"#Part\",\"x\":-40,\"y\":0,\"width\":400,\"height\":300,\"color\":\"2\"},\n" +
		"\t\t{\"id\":\"t\",\"type\":\"text\",\"text\":" + string(enc) + ",\"x\":500,\"y\":0,\"width\":250,\"height\":60},\n" +
		"\t\t{\"id\":\"u\",\"type\":\"link\",\"url\":\"https://example.com/hub/hub-0.md\",\"x\":0,\"y\":400,\"width\":1,\"height\":1},\n" +
		"\t\t{\"id\":\"o\",\"type\":\"file\",\"file\":\"other/Elsewhere.md\",\"x\":0,\"y\":800,\"width\":1,\"height\":1}\n" +
		"\t],\n\t\"edges\":[{\"id\":\"e\",\"fromNode\":\"f\",\"toNode\":\"t\",\"label\":\"[[hub-0]] stays\"}]\n}"
}

// TestCrashDuringRenameKeepsCanvasesWhole SIGKILLs "vaultgraph serve" at
// a random instant while it renames a note that 100 notes and 60 canvases
// point at (a canvas by a file card and by links in a text card), starts
// it again, and checks after each restart that the rename is all or
// nothing, canvases included: the note is under one name, every note and
// every canvas card points at it by that name, each canvas is valid JSON
// and byte for byte what it was but for those names, and the graph gives
// the note every referrer.
func TestCrashDuringRenameKeepsCanvasesWhole(t *testing.T) {
	t.Parallel()
	runs := defaultCanvasCrashRun
	if os.Getenv("VAULTGRAPH_SOAK") != "" {
		runs = 150
	}
	runs, _, rng := crashPlan(t, runs, canvasCrashRunsEnv)

	vault := filepath.Join(t.TempDir(), "vault")
	name := "hub-0"
	writeFile(t, vault, "hub/"+name+".md", "the hub\n\n# Part\n")
	writeFile(t, vault, "other/Elsewhere.md", "elsewhere")
	for i := range canvasReferrers {
		writeFile(t, vault, fmt.Sprintf("refs/ref-%03d.md", i), fmt.Sprintf("ref %d: [[%s]] and [[%s#Part|the hub]]\n", i, name, name))
	}
	for i := range canvasBoards {
		writeFile(t, vault, fmt.Sprintf("boards/%02d/Board %d.canvas", i%6, i), board(i, name))
	}
	st := embeddedStore(t)
	env := processEnv(t, st, "VAULTGRAPH_LOG_LEVEL=warn", "VAULTGRAPH_TOOLSETS=graph")
	args := append([]string{"serve", "--vault", vault}, st.args...)

	rewriteTime := 20 * time.Millisecond
	interrupted, oldName := 0, 0
	start := time.Now()
	for run := range runs {
		s := startRawStdio(t, env, args...)
		s.initialize(t)
		before := name
		name = checkCanvasRenameState(t, s, vault, run)
		if run > 0 && name == before {
			oldName++
		}

		if killMidRename(t, s, vault, run, name, rng, &rewriteTime) {
			interrupted++
		}
	}
	s := startRawStdio(t, env, args...)
	s.initialize(t)
	checkCanvasRenameState(t, s, vault, runs)
	t.Logf("canvas crash: %d runs of a rename with %d note and %d canvas referrers (rewriting them took %s), %d killed before the answer, in %s; %d restarts found the old name (undone); every canvas whole and pointing at the note after every restart",
		runs, canvasReferrers, canvasBoards, rewriteTime.Round(time.Millisecond), interrupted, time.Since(start).Round(time.Millisecond), oldName)
}

// checkCanvasRenameState checks the vault and the graph after a restart
// and returns the hub's current name.
func checkCanvasRenameState(t *testing.T, s *rawStdio, vault string, run int) string {
	t.Helper()
	hubs, err := filepath.Glob(filepath.Join(vault, "hub", "*.md"))
	if err != nil || len(hubs) != 1 {
		t.Fatalf("run %d: the hub is under %d names: %v", run, len(hubs), hubs)
	}
	name := strings.TrimSuffix(filepath.Base(hubs[0]), ".md")
	for i := range canvasReferrers {
		rel := fmt.Sprintf("refs/ref-%03d.md", i)
		if got, want := readFile(t, vault, rel), fmt.Sprintf("ref %d: [[%s]] and [[%s#Part|the hub]]\n", i, name, name); got != want {
			t.Fatalf("run %d: %s is %q, want %q", run, rel, got, want)
		}
	}
	for i := range canvasBoards {
		rel := fmt.Sprintf("boards/%02d/Board %d.canvas", i%6, i)
		got := readFile(t, vault, rel)
		if !json.Valid([]byte(got)) {
			t.Fatalf("run %d: %s is not valid JSON:\n%s", run, rel, got)
		}
		if want := board(i, name); got != want {
			t.Fatalf("run %d: %s is not the canvas pointing at %s, unchanged otherwise:\n%s\nwant:\n%s", run, rel, name, got, want)
		}
	}
	msg := s.wait(t, s.send(t, "tools/call", map[string]any{"name": "get_node", "arguments": map[string]any{"id": "hub/" + name + ".md", "depth": 1}}))
	r := rawReply(t, "get_node", msg)
	var node struct {
		IncomingCount int `json:"incomingCount"`
	}
	if err := json.Unmarshal([]byte(r.text), &node); err != nil || node.IncomingCount != canvasReferrers+canvasBoards {
		t.Fatalf("run %d: the graph has %d nodes linking to %s, the disk %d: %.300s", run, node.IncomingCount, name, canvasReferrers+canvasBoards, r.text)
	}
	return name
}
