package server_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/internal/testwait"
	"github.com/vaultgraph/vaultgraph/resources"
	"github.com/vaultgraph/vaultgraph/server"
)

// Security, round 3 (issue 43): JSON-RPC ids, long resource URIs and
// resource subscriptions. docs/RELIABILITY.md has the figures.

// liveSurface serves f's vault as resources with subscriptions (a
// resources.Changes that keeps at most max per session) over HTTP, and
// returns the test server and the Changes.
func liveSurface(t *testing.T, f *fixture, max int) (*httptest.Server, *resources.Changes) {
	t.Helper()
	ch := resources.NewChanges()
	ch.SetMaxSubscriptions(max)
	deps := resources.Deps{Project: project, Store: f.store, Files: f.mirror.Writer(), Logger: quietLogger(), Changes: ch}
	srv := server.New(server.Options{Version: "test", Logger: quietLogger(), Vault: deps})
	ts, _ := httpServer(t, &fixture{mcp: srv}, server.HTTPOptions{Tokens: tokens})
	return ts, ch
}

// rpc posts one request on session and returns the HTTP status and body.
func rpc(t *testing.T, base, token, session, method, params string, id int) (int, []byte) {
	t.Helper()
	resp := postJSON(t, base, token, session, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	body := readAll(t, resp)
	return resp.StatusCode, body
}

func isResult(body []byte) bool {
	return strings.Contains(string(body), `"result"`) && !strings.Contains(string(body), `"error"`)
}

// Issue 43: an id that is an object, an array or a boolean is refused
// with -32600 and a null id, over stdio and HTTP alike; strings, numbers
// and null pass.
func TestIDsMustBeStringsNumbersOrNull(t *testing.T) {
	f := newFixture(t)
	bad := []string{`{"a":1}`, `[1]`, `true`, `false`}
	good := []string{`"abc"`, `7`, `-1.5`, `1e3`}

	t.Run("stdio", func(t *testing.T) {
		c := rawStdio(t, f)
		for _, id := range bad {
			c.send(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/list"}`)
			line := c.read(t)
			if e := rpcErrorOf(t, line); e.Code != -32600 || !strings.Contains(e.Message, "id must be a string, a number or null") || !strings.Contains(string(line), `"id":null`) {
				t.Errorf("id %s: %s", id, line)
			}
		}
		for _, id := range good {
			c.send(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/list"}`)
			if line := c.read(t); !isResult(line) {
				t.Errorf("id %s: %s", id, line)
			}
		}
	})
	t.Run("http", func(t *testing.T) {
		ts, _ := httpServer(t, f, server.HTTPOptions{Tokens: tokens})
		session := openSession(t, ts.URL, writeToken)
		for _, id := range bad {
			resp := postJSON(t, ts.URL, writeToken, session, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/list"}`)
			body := readAll(t, resp)
			if e := rpcErrorOf(t, body); resp.StatusCode != http.StatusBadRequest || e.Code != -32600 || !strings.Contains(string(body), `"id":null`) {
				t.Errorf("id %s: %d %s", id, resp.StatusCode, body)
			}
		}
		for _, id := range good {
			resp := postJSON(t, ts.URL, writeToken, session, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/list"}`)
			if body := readAll(t, resp); !isResult(body) {
				t.Errorf("id %s: %s", id, body)
			}
		}
	})
}

// cpuTime is the process's user+system CPU time.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Skip("no getrusage here")
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Issue 43: a resource URI over server.MaxResourceURIBytes is refused
// (-32602) before mcp-go matches it against the URI templates, for every
// method that takes one. mcp-go's matching costs ~5 µs of CPU per byte: a
// refusal that came from it would name no limit, and 512 KiB took 2.6 s;
// the CPU time of the refusals is logged (not asserted: the machine is
// shared).
func TestLongResourceURIsAreRefusedFirst(t *testing.T) {
	f := newFixture(t)
	ts, _ := liveSurface(t, f, 10)
	session := openSession(t, ts.URL, readToken)
	long := "vault://note/" + strings.Repeat("a", 512<<10)
	params := map[string]string{
		"resources/read":        `{"uri":"` + long + `"}`,
		"resources/subscribe":   `{"uri":"` + long + `"}`,
		"resources/unsubscribe": `{"uri":"` + long + `"}`,
		"completion/complete":   `{"ref":{"type":"ref/resource","uri":"` + long + `"},"argument":{"name":"id","value":"x"}}`,
	}
	i := 0
	for method, p := range params {
		i++
		before := cpuTime(t)
		code, body := rpc(t, ts.URL, readToken, session, method, p, i)
		spent := cpuTime(t) - before
		e := rpcErrorOf(t, body)
		if code != http.StatusBadRequest || e.Code != -32602 || !strings.Contains(e.Message, "over the limit of "+strconv.Itoa(server.MaxResourceURIBytes)) {
			t.Errorf("%s with a 512 KiB URI: %d %s", method, code, body)
		}
		t.Logf("%s with a 512 KiB URI refused; process CPU meanwhile %s (client and server)", method, spent.Round(time.Millisecond))
	}
	// Just under the limit: answered as usual (no such note).
	under := "vault://note/" + strings.Repeat("a", server.MaxResourceURIBytes-len("vault://note/")-1)
	before := cpuTime(t)
	_, body := rpc(t, ts.URL, readToken, session, "resources/read", `{"uri":"`+under+`"}`, 99)
	t.Logf("resources/read of a URI just under the limit (%d bytes) answered through template matching; process CPU %s", len(under), (cpuTime(t) - before).Round(time.Millisecond))
	if e := rpcErrorOf(t, body); strings.Contains(e.Message, "over the limit") {
		t.Errorf("a URI under the limit refused as too long: %s", body)
	}
}

// heapMiB is the live heap after a collection.
func heapMiB() float64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc) / (1 << 20)
}

// Issue 43: resources/subscribe keeps only URIs of notes that exist, at
// most resources.max_subscriptions per session, whoever asks (a read-only
// token included); refusals are JSON-RPC errors that say what to do, and
// a session's memory stays bounded whatever it sends: big URIs, URIs of
// notes that do not exist, subscriptions past the cap.
func TestSubscriptionsAreVettedAndBounded(t *testing.T) {
	f := newFixture(t)
	const max = 3
	ts, ch := liveSurface(t, f, max)
	session := openSession(t, ts.URL, readToken)
	id := 0
	subscribe := func(uri string) []byte {
		id++
		_, body := rpc(t, ts.URL, readToken, session, "resources/subscribe", `{"uri":`+strconv.Quote(uri)+`}`, id)
		return body
	}
	refused := func(what string, body []byte, code int, has string) {
		t.Helper()
		if e := rpcErrorOf(t, body); e.Code != code || !strings.Contains(e.Message, has) {
			t.Errorf("%s: %s, want %d with %q", what, body, code, has)
		}
	}
	refused("a note that does not exist", subscribe("vault://note/notes/nowhere.md"), -32600, "no note has the URI")
	refused("not a note's URI", subscribe("https://example.com/x"), -32600, "is not a note's URI")
	refused("a URI over the limit", subscribe("vault://note/"+strings.Repeat("x", server.MaxResourceURIBytes)), -32602, "over the limit")
	id++
	escaped := readAll(t, postJSON(t, ts.URL, readToken, session, `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"resources\/subscribe","params":{"uri":"vault:\/\/note\/notes\/nowhere.md"}}`))
	refused("the method and URI spelled with escapes", escaped, -32600, "no note has the URI")
	for _, uri := range []string{"vault://note/notes/graphcore.md", "vault://note/notes/Node", "vault://note/notes/index.md"} {
		if body := subscribe(uri); !isResult(body) {
			t.Fatalf("subscribe %s: %s", uri, body)
		}
	}
	if body := subscribe("vault://note/notes/node.md"); !isResult(body) {
		t.Errorf("subscribing again to a note held (in another ID form): %s", body)
	}
	refused("past the cap", subscribe("vault://note/notes/storeprovider.md"), -32600, "the limit (resources.max_subscriptions)")
	id++
	if _, body := rpc(t, ts.URL, readToken, session, "resources/unsubscribe", `{"uri":"vault://note/notes/index.md"}`, id); !isResult(body) {
		t.Fatalf("unsubscribe: %s", body)
	}
	if body := subscribe("vault://note/notes/storeprovider.md"); !isResult(body) {
		t.Errorf("subscribe after an unsubscribe made room: %s", body)
	}

	// Memory: what issue 43 sent (40 URIs of 4 MiB, thousands of 1 KiB
	// URIs of notes that do not exist), briefly in CI, in full under make
	// soak (VAULTGRAPH_SUBSCRIBE_SOAK=1).
	bigN, smallN := 4, 300
	if os.Getenv("VAULTGRAPH_SUBSCRIBE_SOAK") != "" {
		bigN, smallN = 40, 20000
	}
	before := heapMiB()
	big := "vault://note/" + strings.Repeat("b", 4<<20)
	for range bigN {
		refused("a 4 MiB URI", subscribe(big), -32602, "over the limit")
	}
	for i := range smallN {
		body := subscribe(fmt.Sprintf("vault://note/%s-%d.md", strings.Repeat("s", 1000), i))
		if i%100 == 0 {
			refused("a 1 KiB URI of no note", body, -32600, "no note has the URI")
		}
	}
	after := heapMiB()
	held := ch.Subscriptions(session) // mcp-go's session ID is the HTTP one
	t.Logf("%d subscribes of 4 MiB and %d of 1 KiB refused: live heap %.1f -> %.1f MiB; the session holds %d subscriptions (cap %d)", bigN, smallN, before, after, held, max)
	if held != max {
		t.Errorf("the session holds %d subscriptions, want the cap, %d", held, max)
	}
	if after-before > 8 {
		t.Errorf("live heap grew %.1f MiB over refused subscriptions, want it flat", after-before)
	}
}

// Issue 43: the relay (a process whose store another owns) refuses a
// malformed id itself, and keeps for replay only the subscriptions the
// owner accepted: a refused one (a note that does not exist, past the
// owner's cap) is not sent again to the next owner, so the owner's cap
// bounds what the relay keeps too.
func TestRelayKeepsOnlyAcceptedSubscriptions(t *testing.T) {
	c, owners := relayWithOwners(t)
	first := testwait.Recv(t, owners, "the first owner's connection")
	c.send(t, rawInit)
	first.answer(t, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"vaultgraph","version":"1"}}`)
	c.read(t)
	c.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	first.read(t)
	c.send(t, `{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}`)
	if line := c.read(t); rpcErrorOf(t, line).Code != -32600 || !strings.Contains(string(line), `"id":null`) {
		t.Fatalf("an object id through the relay: %s", line)
	}
	c.send(t, `{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"vault://note/a.md"}}`)
	first.answer(t, "resources/subscribe", `{}`)
	c.read(t)
	c.send(t, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"vault://note/nowhere.md"}}`)
	m := first.read(t) // the object id never reached the owner: this is the subscribe
	if string(m["method"]) != `"resources/subscribe"` || !strings.Contains(string(m["params"]), "nowhere") {
		t.Fatalf("owner got %v", m)
	}
	first.write(t, `{"jsonrpc":"2.0","id":`+string(m["id"])+`,"error":{"code":-32600,"message":"resources/subscribe refused: no note has the URI"}}`)
	c.read(t)
	_ = first.conn.Close()

	second := testwait.Recv(t, owners, "the second owner's connection")
	second.answer(t, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"vaultgraph","version":"1"}}`)
	if m := second.read(t); string(m["method"]) != `"notifications/initialized"` {
		t.Fatalf("after initialize: %v", m)
	}
	m = second.read(t)
	if string(m["method"]) != `"resources/subscribe"` || !strings.Contains(string(m["params"]), "a.md") {
		t.Fatalf("replayed: %v, want the accepted subscription", m)
	}
	second.write(t, `{"jsonrpc":"2.0","id":`+string(m["id"])+`,"result":{}}`)
	c.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	if m := second.read(t); string(m["method"]) != `"tools/list"` {
		t.Fatalf("after the replay the owner got %v, want the client's tools/list (the refused subscription replayed?)", m)
	}
}

// Issue 43: the shim refuses an id that is not a string, a number or
// null itself (the one strict check), with -32600 and a null id.
func TestShimRefusesABadID(t *testing.T) {
	f := newFixture(t)
	ts, _ := httpServer(t, f, server.HTTPOptions{Tokens: tokens})
	var out bytes.Buffer
	in := strings.NewReader(`{"jsonrpc":"2.0","id":[1],"method":"tools/list"}` + "\n")
	if err := server.RunShim(t.Context(), ts.URL+server.MCPPath, writeToken, in, &out, quietLogger()); err != nil {
		t.Fatal(err)
	}
	if e := rpcErrorOf(t, out.Bytes()); e.Code != -32600 || !strings.Contains(out.String(), `"id":null`) {
		t.Fatalf("out = %q", out.String())
	}
}
