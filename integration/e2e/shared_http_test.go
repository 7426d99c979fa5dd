package e2e

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// httpGet returns the status and body of a GET of url.
func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// readP50 times n get_node calls of id through c and returns the median.
func readP50(t *testing.T, c *client.Client, id string, n int) time.Duration {
	t.Helper()
	took := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		if r := callTool(t, c, "get_node", map[string]any{"id": id}); r.isError || r.text == "null" {
			t.Fatalf("get_node %s: %s", id, r.text)
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	return took[n/2]
}

// Issue 24, "Many processes, one vault", over HTTP: serve --http beside a
// stdio serve that owns the vault's store listens at once and serves its
// clients through the owner (read and write tools; a read-only token gets
// the read tools only); a write through either is seen by the other. The
// owner is SIGKILLed while an HTTP client writes: the HTTP server takes
// the store over by itself, its clients' next calls succeed on the same
// sessions, and every acknowledged write is there.
func TestHTTPServerBesideAnOwner(t *testing.T) {
	t.Parallel()
	st := embeddedStore(t)
	vault := copyVault(t, nil)
	env := processEnv(t, st)
	a := spawnServe(t, env, append([]string{"--vault", vault}, st.args...)...)
	a.waitLog(t, ownerLine)

	h := startHTTP(t, st, vault, "127.0.0.1:0")
	if f := h.waitLog(t, relayLine, readyTimeout); f["http"] != true {
		t.Fatalf("the HTTP server's relay line: %v", f)
	}
	if _, ok := findLog(h.stderr.String(), ownerLine); ok {
		t.Fatal("the HTTP server owns a store another process owns")
	}
	if code, body := httpGet(t, "http://"+h.addr+"/healthz"); code != http.StatusOK {
		t.Fatalf("/healthz: %d %s", code, body)
	}
	// The web view is the owner's: this server says so until it owns
	// the store.
	if code, body := httpGet(t, "http://"+h.addr+"/view/"); code != http.StatusServiceUnavailable || !strings.Contains(body, "relays") {
		t.Fatalf("/view/ on a relaying server: %d %.300s", code, body)
	}

	// Both protocol eras: the current one (no session) and a session of
	// 2025-11-25, which must outlive the owner.
	c := httpClient(t, h.url(), rwToken)
	initialize(t, c)
	legacy := httpClient(t, h.url(), rwToken, legacyProtocol())
	initialize(t, legacy)
	mustNode(t, c, "home.md")
	var created node
	callTool(t, legacy, "create_node", map[string]any{"title": "Through HTTP", "content": "written through the relaying HTTP server"}).decode(t, &created)
	mustNode(t, a.c, created.ID)
	fromHTTP := created.ID
	callTool(t, a.c, "create_node", map[string]any{"title": "Through stdio", "content": "written through the owner"}).decode(t, &created)
	mustNode(t, c, created.ID)
	fromStdio := created.ID
	callTool(t, c, "update_node", map[string]any{"id": fromStdio, "tags": []string{"through-http"}})

	// The owner's change log names the relaying server's callers (the
	// front's connection says it relays them: owner.KindMCPFront), and the
	// owner's own stdio client as local.
	var log struct {
		Changes []struct {
			Kind, ID string
			By       struct{ ID string }
		}
	}
	callTool(t, a.c, "recent_changes", map[string]any{"limit": 10}).decode(t, &log)
	by := map[string]string{}
	for _, ch := range log.Changes {
		by[ch.Kind+" "+ch.ID] = ch.By.ID
	}
	for change, want := range map[string]string{
		"created " + fromHTTP:   "token:1", // legacy session, through the front
		"created " + fromStdio:  "local",   // the owner's stdio client
		"modified " + fromStdio: "token:1", // current protocol, through the front
	} {
		if by[change] != want {
			t.Errorf("the owner's change log names %q for %q through the relaying server, want %q (all: %v)", by[change], change, want, by)
		}
	}

	// A subscription through the relaying server hears of a write
	// through the owner (and, below, of one after the take-over).
	//lint:ignore SA1019 clients of protocol 2025-11-25 hear of their subscriptions on the GET stream; this tests them
	tr, err := transport.NewStreamableHTTP(h.url(), transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + rwToken}), transport.WithContinuousListening())
	if err != nil {
		t.Fatal(err)
	}
	sub := client.NewClient(tr, legacyProtocol())
	t.Cleanup(func() { _ = sub.Close() })
	if err := sub.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	initialize(t, sub)
	var updates atomic.Int32
	sub.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/resources/updated" && n.Params.AdditionalFields["uri"] == "vault://note/home.md" {
			updates.Add(1)
		}
	})
	var sreq mcp.SubscribeRequest
	sreq.Params.URI = "vault://note/Home"
	ctx, cancel := context.WithTimeout(t.Context(), callTimeout)
	defer cancel()
	//lint:ignore SA1019 resources/subscribe is what clients of protocol 2025-11-25 send; this tests it
	if err := sub.Subscribe(ctx, sreq); err != nil {
		t.Fatal(err)
	}
	callTool(t, a.c, "update_node", map[string]any{"id": "home.md", "content": "Home, edited through the owner."})
	if !eventually(watchTimeout, func() bool { return updates.Load() >= 1 }) {
		t.Fatal("a subscription through the relaying HTTP server did not hear of a write through the owner")
	}
	// So does a subscriptions/listen stream (protocol 2026-07-28) through
	// the relaying server.
	stream := listen(t, h.url(), rwToken, "vault://note/Home")
	callTool(t, a.c, "update_node", map[string]any{"id": "home.md", "content": "Home, edited through the owner again."})
	stream.waitUpdated(t, "vault://note/home.md", "a write through the owner")

	ro := httpClient(t, h.url(), roToken)
	initialize(t, ro)
	names := toolNames(listTools(t, ro))
	for _, w := range writeTools {
		if slices.Contains(names, w) {
			t.Errorf("a read-only token is offered %s through the relaying server", w)
		}
	}
	if r, err := tryCall(t, ro, "create_node", map[string]any{"title": "RO Write", "content": "x"}); err == nil && !r.isError {
		t.Fatalf("a read-only token wrote through the relaying server: %s", r.text)
	}
	if fileExists(vault, "RO Write.md") {
		t.Fatal("a read-only token's write reached the vault")
	}

	// Reads through the relaying HTTP server, side by side with an HTTP
	// server that owns a store of its own (same vault content).
	direct := startHTTP(t, embeddedStore(t), copyVault(t, nil), "127.0.0.1:0")
	dc := httpClient(t, direct.url(), rwToken)
	initialize(t, dc)
	mustNode(t, dc, "home.md")
	var relayed, owned []time.Duration
	for range 3 {
		relayed = append(relayed, readP50(t, c, "home.md", 100))
		owned = append(owned, readP50(t, dc, "home.md", 100))
	}
	t.Logf("get_node home.md over HTTP, p50 of 100 calls, 3 rounds side by side: relayed to the stdio owner %v, HTTP server owning its store %v", relayed, owned)

	// SIGKILL the owner while the legacy session writes.
	acked, lost := writesAroundKill(t, legacy, "HTTP After", func() {
		a.cmd.Process.Signal(syscall.SIGKILL) //nolint:errcheck // checked by its exit below
	})
	select {
	case err := <-a.exited:
		a.exited <- err // for its cleanup
	case <-time.After(readyTimeout):
		t.Fatal("the killed owner did not exit")
	}
	h.waitLog(t, ownerLine, readyTimeout)
	h.waitLog(t, "took over the vault's store; the HTTP clients carry on", readyTimeout)
	t.Logf("after the SIGKILL: %d writes acknowledged through HTTP, %d lost in flight (answered as such)", len(acked), lost)
	if len(acked) < 50 {
		t.Fatalf("only %d of 60 writes acknowledged around the SIGKILL", len(acked))
	}
	for _, id := range acked {
		if !noteFileExists(vault, id) {
			t.Errorf("acknowledged %s is not in the vault", id)
		}
		mustNode(t, c, id)
	}
	mustNode(t, legacy, "through stdio.md")
	callTool(t, c, "update_node", map[string]any{"id": "home.md", "content": "Home, edited after the take-over."})
	if !eventually(watchTimeout, func() bool { return updates.Load() >= 2 }) {
		t.Fatal("the subscription did not carry over to the new owner")
	}
	mustNode(t, ro, "through http.md")
	h.waitReady(t)
	// Once its first sync as the owner is done, the view is this one's.
	if !eventually(readyTimeout, func() bool {
		code, _ := httpGet(t, "http://"+h.addr+"/view/")
		return code != http.StatusServiceUnavailable
	}) {
		t.Fatalf("/view/ after the take-over still unavailable; stderr:\n%s", h.stderr.String())
	}

	// A new stdio server joins the HTTP server that owns the store now.
	b := spawnServe(t, env, append([]string{"--vault", vault}, st.args...)...)
	b.waitLog(t, relayLine)
	mustNode(t, b.c, acked[len(acked)-1])
	var late node
	callTool(t, b.c, "create_node", map[string]any{"title": "Late Stdio", "content": "x"}).decode(t, &late)
	mustNode(t, c, late.ID)
	mustNode(t, legacy, late.ID)
}
