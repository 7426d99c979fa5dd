package view

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/vault"
)

// TestSaveNeverOverwritesAnOutsideEdit (issue 43): the note API answers
// the note's version, a save sends it back, and a file changed on disk
// since (the watcher has not even seen it yet) is answered 409 with the
// note as it is now; the outside edit stays in the file. A save without a
// version is refused; a save of the current version is written and
// answers the next version.
func TestSaveNeverOverwritesAnOutsideEdit(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "n.md")
	if err := os.WriteFile(file, []byte("---\ntags: [x]\n---\nfirst line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st := memstore.New()
	feed := NewFeed()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	m, err := vault.NewMirror(vault.Config{Root: dir, Project: project, Store: feed.Store(st), Logger: quiet, NoProgress: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	v, err := New(Options{Project: project, Store: st, Graph: core.NewGraphService(project, st, m.Writer()), Feed: feed, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = v.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-v.Ready():
	case <-time.After(waitLimit):
		t.Fatal("the view did not load the notes")
	}
	srv := httptest.NewServer(v.Handler())
	t.Cleanup(srv.Close)
	e := &env{store: st, view: v, srv: srv}
	c := client(t)
	login(t, e, c, false)

	load := func() noteAnswer {
		_, b := get(t, c, srv.URL+PathPrefix+"api/note?id=n.md")
		return decode[noteAnswer](t, b)
	}
	save := func(body string) (int, map[string]string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+PathPrefix+"api/note", strings.NewReader(body))
		req.Header.Set("Origin", srv.URL)
		req.Header.Set("X-Vaultgraph-View", "1")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]string
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	body := func(content, version string) string {
		b, _ := json.Marshal(map[string]string{"id": "n.md", "content": content, "version": version})
		return string(b)
	}

	a := load()
	if a.Version == "" || a.Content != "first line\n" {
		t.Fatalf("api/note: version %q, content %q; want a version and the body", a.Version, a.Content)
	}
	if code, _ := save(`{"id":"n.md","content":"no version"}`); code != http.StatusBadRequest {
		t.Errorf("a save without a version: %d, want 400", code)
	}

	// Outside, before the watcher (not running here) has told anyone.
	if err := os.WriteFile(file, []byte("---\ntags: [x]\n---\nfirst line\nline added outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := save(body("first line\nmy edit\n", a.Version))
	if code != http.StatusConflict || !strings.Contains(out["error"], "changed meanwhile") {
		t.Fatalf("a save over an outside edit: %d %v, want 409 changed meanwhile", code, out)
	}
	if out["content"] != "first line\nline added outside\n" || out["version"] == "" || out["version"] == a.Version {
		t.Errorf("the 409's note as it is now: %q version %q", out["content"], out["version"])
	}
	if raw, _ := os.ReadFile(file); !strings.Contains(string(raw), "line added outside") || strings.Contains(string(raw), "my edit") {
		t.Fatalf("the file after the refused save:\n%s", raw)
	}

	// Saved against the version the 409 showed: written, frontmatter kept.
	code, out = save(body("first line\nline added outside\nmy edit\n", out["version"]))
	if code != http.StatusOK || out["version"] == "" {
		t.Fatalf("a save of the current version: %d %v, want 200 with the next version", code, out)
	}
	if raw, _ := os.ReadFile(file); string(raw) != "---\ntags: [x]\n---\nfirst line\nline added outside\nmy edit\n" {
		t.Errorf("the file after the save:\n%s", raw)
	}
	if a := load(); a.Version != out["version"] {
		t.Errorf("api/note after the save: version %q, the save answered %q", a.Version, out["version"])
	}
}
