package e2e

import (
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/benchgen"
)

// startVaultNotes is the size of the vault of the start test: its first
// sync takes seconds (longer under the race detector), far longer than
// an answer to initialize.
const startVaultNotes = 6000

// Issue 24, "Start": serve answers initialize while the first sync of a
// large vault is still running (stdio), a read during that sync waits for
// it reporting progress to a client that sent a progress token, and an
// HTTP server answers /healthz at once and /readyz only once the sync is
// done. "Before the sync is done" is read from the process's own log (the
// sync logs "vault: sync done"), never from a clock.
func TestServeAnswersDuringFirstSync(t *testing.T) {
	t.Parallel()
	vault := filepath.Join(t.TempDir(), "vault")
	m, err := benchgen.Generate(vault, benchgen.Config{Notes: startVaultNotes, Seed: 24})
	if err != nil {
		t.Fatal(err)
	}
	hub := strings.ToLower(m.Hubs(1)[0].Path)

	t.Run("stdio", func(t *testing.T) {
		st := embeddedStore(t)
		var (
			mu       sync.Mutex
			progress []string
		)
		c, sp := stdioClient(t, processEnv(t, st), append([]string{"serve", "--vault", vault}, st.args...))
		c.OnNotification(func(n mcp.JSONRPCNotification) {
			if n.Method == string(mcp.MethodNotificationProgress) {
				mu.Lock()
				defer mu.Unlock()
				msg, _ := n.Params.AdditionalFields["message"].(string)
				progress = append(progress, msg)
			}
		})
		start := time.Now()
		initialize(t, c)
		took := time.Since(start)
		if _, done := findLog(sp.stderr.String(), "vault: sync done"); done {
			t.Fatalf("the first sync of %d notes was done before initialize was answered (%s): the test proves nothing; stderr:\n%s",
				startVaultNotes, took, sp.stderr.String())
		}
		t.Logf("initialize answered in %s, during the first sync", took.Round(time.Millisecond))

		req := mcp.CallToolRequest{}
		req.Params.Name = "get_node"
		req.Params.Arguments = map[string]any{"id": hub}
		req.Params.Meta = &mcp.Meta{ProgressToken: "first-sync"}
		_, syncedBefore := findLog(sp.stderr.String(), "vault: sync done")
		res, err := c.CallTool(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		r := toReply(t, "get_node", res)
		if res.IsError {
			t.Fatalf("get_node during the first sync: %s", r.text)
		}
		_, syncedAfter := findLog(sp.stderr.String(), "vault: sync done")
		mu.Lock()
		got := append([]string(nil), progress...)
		mu.Unlock()
		if !syncedBefore && (len(got) == 0 || !strings.Contains(got[0], "first sync")) {
			t.Errorf("a read sent during the first sync heard no progress: %q", got)
		}
		// The notice is in the answer's _warnings: inside an object answer,
		// after a null one (the note not stored yet: a sync slower than
		// the read's wait, as under heavy load).
		notice := strings.Contains(r.text, "still syncing") ||
			slices.ContainsFunc(r.warnings, func(w string) bool { return strings.Contains(w, "still syncing") })
		if notice == syncedAfter {
			t.Errorf("answer carries the first-sync notice: %v, sync done when it came: %v; answer %.300s %q", notice, syncedAfter, r.text, r.warnings)
		}
		if !strings.Contains(r.text, `"id":"`+hub+`"`) && !notice {
			t.Errorf("get_node %s after the first sync: %.300s", hub, r.text)
		}
		t.Logf("read with a progress token: %d progress notifications, sync done by the answer: %v", len(got), syncedAfter)
	})

	t.Run("http", func(t *testing.T) {
		st := embeddedStore(t)
		p := startProc(t, processEnv(t, st, tokenEnv), nil, append([]string{"serve", "--vault", vault, "--http", "127.0.0.1:0"}, st.args...)...)
		addr, _ := p.waitLog(t, "serving MCP over HTTP", readyTimeout)["addr"].(string)
		get := func(path string) (int, string) {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://"+addr+path, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("GET %s: %v", path, err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		if code, body := get("/healthz"); code != http.StatusOK {
			t.Errorf("/healthz during the first sync: %d %s", code, body)
		}
		_, syncedBefore := findLog(p.stderr.String(), "vault: sync done")
		code, body := get("/readyz")
		if !syncedBefore && code != http.StatusServiceUnavailable {
			t.Errorf("/readyz before the first sync was done: %d %s, want 503", code, body)
		}
		c := httpClient(t, "http://"+addr+"/mcp", rwToken)
		initialize(t, c) // MCP answers during the sync too
		// The sync of startVaultNotes notes, race detector on, took over
		// readyTimeout beside the whole suite at load 40 on 2 cores.
		p.waitLog(t, "vault: sync done", 2*readyTimeout)
		(&httpServer{proc: p, addr: addr}).waitReady(t)
		mustNode(t, c, hub)
	})
}
