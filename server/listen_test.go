package server_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// listenBody is a subscriptions/listen request (protocol 2026-07-28)
// following uris.
func listenBody(id int, uris ...string) string {
	quoted := make([]string, len(uris))
	for i, u := range uris {
		quoted[i] = strconv.Quote(u)
	}
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}},"notifications":{"resourceSubscriptions":[` + strings.Join(quoted, ",") + `]}}}`
}

var modernHeaders = map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen"}

// Issue 46.3: a subscriptions/listen stream (protocol 2026-07-28, no
// session) is vetted as resources/subscribe is (notes that exist, at most
// resources.max_subscriptions), and carries notifications/resources/updated
// of its notes, tagged with its subscription ID, whether the write passed
// through this process or another (Changes.Changed: a replica's, seen in
// Neo4j's change log), until the stream ends.
func TestListenStreamsAreVettedAndCarryUpdates(t *testing.T) {
	f := newFixture(t)
	ts, ch := liveSurface(t, f, 2)
	refused := func(what, body, has string) {
		t.Helper()
		resp := doMCP(t, http.MethodPost, ts.URL, readToken, "", body, modernHeaders)
		got := readAll(t, resp)
		if e := rpcErrorOf(t, got); e.Code != -32600 || !strings.Contains(e.Message, has) {
			t.Errorf("%s: %s, want -32600 with %q", what, got, has)
		}
	}
	refused("more notes than the limit", listenBody(1, "vault://note/notes/graphcore.md", "vault://note/notes/node.md", "vault://note/notes/index.md"), "over the limit of 2 (resources.max_subscriptions)")
	refused("a note that does not exist", listenBody(2, "vault://note/notes/nowhere.md"), "no note has the URI")

	resp := doMCP(t, http.MethodPost, ts.URL, readToken, "", listenBody(3, "vault://note/notes/Node"), modernHeaders)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("listen: %s %s", resp.Status, readAll(t, resp))
	}
	msgs := make(chan map[string]any, 16)
	go func() {
		defer close(msgs)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m map[string]any
				if json.Unmarshal([]byte(data), &m) == nil {
					msgs <- m
				}
			}
		}
	}()
	next := func(what string) map[string]any {
		t.Helper()
		select {
		case m, ok := <-msgs:
			if !ok {
				t.Fatalf("the stream ended before %s", what)
			}
			return m
		case <-time.After(30 * time.Second):
			t.Fatalf("no %s on the stream", what)
			return nil
		}
	}
	if m := next("acknowledgement"); m["method"] != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first message: %v", m)
	}
	ch.Changed([]string{"notes/index.md"}, false) // not followed
	ch.Changed([]string{"notes/node.md"}, false)
	m := next("update")
	params, _ := m["params"].(map[string]any)
	meta, _ := params["_meta"].(map[string]any)
	if m["method"] != "notifications/resources/updated" || params["uri"] != "vault://note/notes/node.md" || meta["io.modelcontextprotocol/subscriptionId"] != float64(3) {
		t.Fatalf("update on the stream: %v", m)
	}
	ch.ChangedUnknown() // too many to list: every followed note is told
	if m := next("update after an unknown change"); m["method"] != "notifications/resources/updated" {
		t.Fatalf("after an unknown change: %v", m)
	}
}
