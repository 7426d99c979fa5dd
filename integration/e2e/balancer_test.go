package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/resources"
)

// replicaHeader is the response header HAProxy adds with the name of the
// replica that answered (docs/TEAM.md's example configuration does too).
const replicaHeader = "X-Vaultgraph-Replica"

// startHAProxy runs Debian's haproxy in front of backends, balancing every
// request round-robin (no stickiness), and returns its address.
func startHAProxy(t *testing.T, backends ...string) string {
	t.Helper()
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		if os.Getenv("VAULTGRAPH_REQUIRE_HAPROXY") != "" || os.Getenv("CI") != "" {
			t.Fatal("haproxy is not installed (apt-get install haproxy); the load balancer test needs it")
		}
		t.Skip("haproxy is not installed (apt-get install haproxy)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	var servers []string
	for i, b := range backends {
		servers = append(servers, fmt.Sprintf("  server r%d %s", i+1, b))
	}
	cfg := fmt.Sprintf(`global
  maxconn 256
defaults
  mode http
  timeout connect 5s
  timeout client 5m
  timeout server 5m
frontend mcp
  bind %s
  default_backend replicas
backend replicas
  balance roundrobin
  http-response set-header %s %%s
%s
`, addr, replicaHeader, strings.Join(servers, "\n"))
	path := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-db", "-f", path)
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	if !eventually(time.Minute, func() bool {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = c.Close()
		}
		return err == nil
	}) {
		t.Fatalf("haproxy did not listen on %s:\n%s", addr, out.String())
	}
	return addr
}

// replicaCounter is an http.RoundTripper that counts which replica
// answered each request, from the balancer's header, in order.
type replicaCounter struct {
	mu    sync.Mutex
	order []string
}

func (c *replicaCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		c.mu.Lock()
		c.order = append(c.order, resp.Header.Get(replicaHeader))
		c.mu.Unlock()
	}
	return resp, err
}

func (c *replicaCounter) seen() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.order...)
}

// Issue 46.3: two serve --http replicas of one vault on one Neo4j behind a
// round-robin balancer serve one client's whole session with its requests
// alternating between them: discovery, tools/list, 50 tool calls (writes
// through one replica read back through the other at once), resources.
func TestReplicasBehindARoundRobinBalancer(t *testing.T) {
	t.Parallel()
	st := neo4jStoreSharing(t)
	vault := copyVault(t, nil)
	worker := startProc(t, processEnv(t, st), nil, append([]string{"sync", "--watch", "--vault", vault}, st.args...)...)
	worker.waitLog(t, "vault: sync done", readyTimeout)
	a := startHTTP(t, st, vault, "127.0.0.1:0", "--watch=false")
	b := startHTTP(t, st, vault, "127.0.0.1:0", "--watch=false")
	lb := startHAProxy(t, a.addr, b.addr)

	counter := &replicaCounter{}
	tr, err := transport.NewStreamableHTTP("http://"+lb+"/mcp",
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + rwToken}),
		transport.WithHTTPBasicClient(&http.Client{Transport: counter}))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	initialize(t, c)
	if names := toolNames(listTools(t, c)); len(names) == 0 {
		t.Fatal("no tools through the balancer")
	}

	calls, lastID := 0, ""
	for i := range 10 {
		// A write through one replica, read back at once through the
		// next: round robin sends the two to different replicas.
		created := callTool(t, c, "create_node", map[string]any{"title": fmt.Sprintf("Balanced %d", i), "content": "written through the balancer", "tags": []string{"balanced"}})
		var n struct{ ID string }
		created.decode(t, &n)
		lastID = n.ID
		if getNode(t, c, map[string]any{"id": n.ID}) == nil {
			t.Fatalf("note %s written through one replica is missing on the next request", n.ID)
		}
		if r := callTool(t, c, "update_node", map[string]any{"id": n.ID, "tags": []string{"balanced", fmt.Sprintf("round%d", i)}}); r.isError {
			t.Fatalf("update through the balancer: %s", r.text)
		}
		if !strings.Contains(callTool(t, c, "search_by_tags", map[string]any{"tags": []string{fmt.Sprintf("round%d", i)}}).text, n.ID) {
			t.Fatalf("a tag written through one replica is not found through the next request")
		}
		callTool(t, c, "get_neighbors", map[string]any{"id": n.ID})
		calls += 5
	}
	if calls != 50 {
		t.Fatalf("made %d calls", calls)
	}
	res, err := c.ListResources(t.Context(), mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatalf("resources/list through the balancer: %v", err)
	}
	if len(res.Resources) == 0 {
		t.Fatal("no resources through the balancer")
	}
	var read mcp.ReadResourceRequest
	read.Params.URI = res.Resources[0].URI
	if _, err := c.ReadResource(t.Context(), read); err != nil {
		t.Fatalf("resources/read through the balancer: %v", err)
	}

	// A subscription (protocol 2026-07-28: a subscriptions/listen stream)
	// on one replica hears of a write made through the other, and of an
	// edit of the file the sync worker mirrors.
	uri := resources.URI(lastID)
	l := listen(t, "http://"+lb+"/mcp", rwToken, uri)
	for i := 0; ; i++ {
		// Round robin sends the request after the stream's to the other
		// replica; a read goes first when it would not.
		if i > 2 {
			t.Fatalf("no write reached the replica the stream is not on (%s): %v", l.replica, counter.seen())
		}
		if r := callTool(t, c, "update_node", map[string]any{"id": lastID, "tags": []string{"followed", fmt.Sprintf("across%d", i)}}); r.isError {
			t.Fatalf("update of the subscribed note: %s", r.text)
		}
		if seen := counter.seen(); seen[len(seen)-1] != l.replica {
			break
		}
	}
	l.waitUpdated(t, uri, "a write through the other replica")
	path := noteFilePath(vault, lastID)
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(body, []byte("\nEdited outside, mirrored by the sync worker.\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	l.waitUpdated(t, uri, "an edit of the file, mirrored by the sync worker")

	order := counter.seen()
	count := map[string]int{}
	switches := 0
	for i, r := range order {
		count[r]++
		if i > 0 && r != order[i-1] {
			switches++
		}
	}
	if count["r1"] == 0 || count["r2"] == 0 || switches < len(order)/3 {
		t.Fatalf("the requests did not alternate between the replicas: %v (%d switches in %d requests)", count, switches, len(order))
	}
	t.Logf("balancer: %d requests, %v, %d switches between replicas, 0 errors", len(order), count, switches)
}

// listenStream is an open subscriptions/listen request (protocol
// 2026-07-28) and the messages its response stream carried.
type listenStream struct {
	replica  string // the replica serving it, from the balancer's header
	messages chan map[string]any
}

// listen opens a subscriptions/listen stream at url following uris, and
// waits for its acknowledgement.
func listen(t *testing.T, url, token string, uris ...string) *listenStream {
	t.Helper()
	const version = "2026-07-28"
	body, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen",
		"params": map[string]any{
			"_meta": map[string]any{
				"io.modelcontextprotocol/protocolVersion":    version,
				"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "balancer-test", "version": "1"},
				"io.modelcontextprotocol/clientCapabilities": map[string]any{},
			},
			"notifications": map[string]any{"resourceSubscriptions": uris},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", version)
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = resp.Body.Close() })
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		t.Fatalf("subscriptions/listen: %s %s: %s", resp.Status, resp.Header.Get("Content-Type"), b)
	}
	l := &listenStream{replica: resp.Header.Get(replicaHeader), messages: make(chan map[string]any, 64)}
	go func() {
		defer close(l.messages)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var m map[string]any
			if json.Unmarshal([]byte(data), &m) == nil {
				l.messages <- m
			}
		}
	}()
	if m := l.next(t, "the acknowledgement"); m["method"] != "notifications/subscriptions/acknowledged" {
		t.Fatalf("subscriptions/listen: the first message is %v, not the acknowledgement", m)
	}
	return l
}

// next returns the stream's next message.
func (l *listenStream) next(t *testing.T, what string) map[string]any {
	t.Helper()
	select {
	case m, ok := <-l.messages:
		if !ok {
			t.Fatalf("the subscriptions/listen stream ended before %s", what)
		}
		return m
	case <-time.After(readyTimeout):
		t.Fatalf("no %s on the subscriptions/listen stream in %s", what, readyTimeout)
		return nil
	}
}

// waitUpdated waits for notifications/resources/updated naming uri, tagged
// with the stream's subscription ID.
func (l *listenStream) waitUpdated(t *testing.T, uri, after string) {
	t.Helper()
	for {
		m := l.next(t, "notifications/resources/updated after "+after)
		params, _ := m["params"].(map[string]any)
		if m["method"] != "notifications/resources/updated" || params["uri"] != uri {
			continue
		}
		meta, _ := params["_meta"].(map[string]any)
		if meta["io.modelcontextprotocol/subscriptionId"] != "listen-1" {
			t.Fatalf("the update is not tagged with the stream's subscription ID: %v", m)
		}
		return
	}
}
