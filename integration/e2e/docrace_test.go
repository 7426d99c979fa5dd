package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/internal/testwait"
)

// docRaceEnv sets how long TestDocumentSymlinkRace attacks, in seconds
// (default 4; make soak: 60).
const docRaceEnv = "VAULTGRAPH_DOCRACE_SECONDS"

// docCanary is the text of the files outside the allowed roots: no answer
// and no chunk may ever hold it.
const docCanary = "CANARY-d0c5 outside the roots"

// TestDocumentSymlinkRace (issue 21, "no escape, ever", document tools):
// `serve --http` on loopback with the document tools; an attacker swaps, as
// fast as it can, a file of the vault and of the extra root for a symbolic
// link to an outside canary, and a folder for a link to an outside folder
// of canaries, while four clients call every document tool that takes a
// path or reads the index (index_file, index_directory, search,
// search_with_filters, search_with_budget, delete_file, get_index_stats).
// Every answer is checked for canary bytes; at the end every chunk of the
// index is read back (search_with_budget with a large budget, and a search
// per source file).
func TestDocumentSymlinkRace(t *testing.T) {
	t.Parallel()
	seconds := 4
	if v, err := strconv.Atoi(os.Getenv(docRaceEnv)); err == nil && v > 0 {
		seconds = v
	}
	st := embeddedStore(t)
	base := t.TempDir()
	vault, docs, outside := filepath.Join(base, "vault"), filepath.Join(base, "docs"), filepath.Join(base, "outside")
	inside := "# Inside\n\nOrdinary notes about gardening and tomatoes.\n"
	for path, content := range map[string]string{
		filepath.Join(vault, "note.md"):          inside,
		filepath.Join(vault, "dir", "deep.md"):   inside + "Deep in a folder.\n",
		filepath.Join(docs, "doc.txt"):           "Plain document about gardening.",
		filepath.Join(outside, "canary.md"):      "# Canary\n\n" + docCanary + "\n",
		filepath.Join(outside, "dir", "deep.md"): "# Canary folder\n\n" + docCanary + "\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	args := []string{"serve", "--vault", vault, "--http", "127.0.0.1:0", "--toolsets", "memory"}
	args = append(args, st.args...)
	p := startProc(t, processEnv(t, st, tokenEnv, "VAULTGRAPH_EMBEDDING_PROVIDER=builtin", "VAULTGRAPH_DOCUMENTS_ALLOWED_ROOTS="+docs), nil, args...)
	fields := p.waitLog(t, "serving MCP over HTTP", readyTimeout)
	url := "http://" + fields["addr"].(string) + "/mcp"

	// The attacker: swap names for links leading out, and back.
	var stop atomic.Bool
	var swaps atomic.Int64
	attacker := make(chan struct{})
	go func() {
		defer close(attacker)
		type victim struct{ path, link, content string }
		files := []victim{
			{filepath.Join(vault, "note.md"), filepath.Join(outside, "canary.md"), inside},
			{filepath.Join(docs, "doc.txt"), filepath.Join(outside, "canary.md"), "Plain document about gardening."},
		}
		folder := filepath.Join(vault, "dir")
		for i := 0; !stop.Load(); i++ {
			for _, v := range files {
				tmp := v.path + ".swap"
				_ = os.RemoveAll(tmp)
				if i%2 == 0 {
					_ = os.Symlink(v.link, tmp)
				} else {
					_ = os.WriteFile(tmp, []byte(v.content), 0o644)
				}
				_ = os.Rename(tmp, v.path)
			}
			_ = os.RemoveAll(folder)
			if i%2 == 0 {
				_ = os.Symlink(filepath.Join(outside, "dir"), folder)
			} else {
				_ = os.MkdirAll(folder, 0o755)
				_ = os.WriteFile(filepath.Join(folder, "deep.md"), []byte(inside+"Deep in a folder.\n"), 0o644)
			}
			swaps.Add(1)
		}
	}()

	var calls, leaks atomic.Int64
	check := func(t *testing.T, tool, text string) {
		calls.Add(1)
		if strings.Contains(text, "CANARY") {
			leaks.Add(1)
			t.Errorf("%s answered outside bytes: %.300s", tool, text)
		}
	}
	searchName := "search" // only the memory toolset: spec 004's name
	deadline := time.Now().Add(time.Duration(seconds) * time.Second)
	var clients sync.WaitGroup
	for n := range 4 {
		clients.Go(func() {
			c := httpClient(t, url, rwToken)
			initialize(t, c)
			plan := []struct {
				tool string
				args map[string]any
			}{
				{"index_file", map[string]any{"file_path": "note.md"}},
				{"index_file", map[string]any{"file_path": "dir/deep.md"}},
				{"index_file", map[string]any{"file_path": filepath.Join(docs, "doc.txt")}},
				{"index_directory", map[string]any{"dir_path": vault}},
				{"index_directory", map[string]any{"dir_path": "dir"}},
				{"index_directory", map[string]any{"dir_path": docs}},
				{searchName, map[string]any{"query": "canary outside the roots gardening", "n_results": 50}},
				{"search_with_filters", map[string]any{"query": "canary gardening", "filters": map[string]any{"source_file": "note.md"}}},
				{"search_with_budget", map[string]any{"query": "canary outside gardening", "max_tokens": 100000}},
				{"get_index_stats", map[string]any{}},
				{"delete_file", map[string]any{"source_file": "dir/deep.md"}},
			}
			for i := n; time.Now().Before(deadline); i++ {
				call := plan[i%len(plan)]
				r, err := tryCall(t, c, call.tool, call.args)
				if err != nil {
					t.Errorf("%s: %v", call.tool, err)
					return
				}
				check(t, call.tool, r.text)
			}
		})
	}
	clients.Wait()
	stop.Store(true)
	testwait.Recv(t, attacker, "the attacker's end")

	// Everything the index holds, read back.
	c := httpClient(t, url, rwToken)
	initialize(t, c)
	r := callTool(t, c, "search_with_budget", map[string]any{"query": "canary outside the roots gardening tomatoes folder document", "max_tokens": 1000000})
	check(t, "final search_with_budget", r.text)
	var stats statsData
	var env envelope
	sr := callTool(t, c, "get_index_stats", map[string]any{})
	sr.decode(t, &env)
	if err := json.Unmarshal(env.Data, &stats); err != nil {
		t.Fatal(err)
	}
	for _, src := range stats.SourceFiles {
		if !strings.HasPrefix(src, vault+string(filepath.Separator)) && !strings.HasPrefix(src, docs+string(filepath.Separator)) {
			t.Errorf("the index holds a file outside the roots: %s", src)
		}
		r := callTool(t, c, "search_with_filters", map[string]any{"query": "canary gardening", "n_results": 50, "filters": map[string]any{"source_file": src}})
		check(t, "final search of "+src, r.text)
	}
	t.Logf("%d s, %d swaps, %d answers checked, %d chunks in %d files at the end, %d leaks",
		seconds, swaps.Load(), calls.Load(), stats.TotalDocuments, len(stats.SourceFiles), leaks.Load())
	if leaks.Load() > 0 {
		t.Errorf("%d answers held outside bytes", leaks.Load())
	}
	if swaps.Load() < 10 {
		t.Errorf("only %d swaps: the attack did not run", swaps.Load())
	}
}
