package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/server"
)

// The wire behaviour every line transport shares (issue 48.1): what the
// stdio server, the relay to a vault's owner and the shim to a remote
// server answer to each kind of line, pinned in one table and run in
// process against each. The choices where JSON-RPC 2.0 and MCP leave room
// are docs/DECISIONS.md's "One JSON-RPC core".

// wireAnswer is the error a line must get: code and id (raw JSON); a nil
// *wireAnswer means no answer at all.
type wireAnswer struct {
	code int
	id   string
	msg  string // a part of the message
}

var wireCases = []struct {
	name string
	line string
	want *wireAnswer
}{
	{"not JSON", `this is not json`, &wireAnswer{-32700, "null", "Parse error"}},
	{"truncated object", `{"jsonrpc":"2.0","id":1,"method":"ping"`, &wireAnswer{-32700, "null", "Parse error"}},
	{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`, &wireAnswer{-32600, "null", "batches are not supported"}},
	{"empty batch", `[]`, &wireAnswer{-32600, "null", "batches are not supported"}},
	{"a number", `42`, &wireAnswer{-32600, "null", "a JSON-RPC message is a JSON object"}},
	{"null", `null`, &wireAnswer{-32600, "null", "a JSON-RPC message is a JSON object"}},
	{"method not a string", `{"jsonrpc":"2.0","id":8,"method":5}`, &wireAnswer{-32600, "8", `"method" must be a string`}},
	{"request with id null", `{"jsonrpc":"2.0","id":null,"method":"tools/list"}`, &wireAnswer{-32600, "null", `"id" is null`}},
	{"notification with id null", `{"jsonrpc":"2.0","id":null,"method":"notifications/initialized"}`, &wireAnswer{-32600, "null", `"id" is null`}},
	{"id an object", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, &wireAnswer{-32600, "null", "id must be a string, a number or null"}},
	{"id a boolean", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, &wireAnswer{-32600, "null", "id must be a string, a number or null"}},
	{"id given twice", `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, &wireAnswer{-32600, "null", `key "id" is given twice`}},
	{"method given twice", `{"jsonrpc":"2.0","id":5,"method":"tools/list","method":"ping"}`, &wireAnswer{-32600, "5", `key "method" is given twice`}},
	{"params key given twice", `{"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":"get_node","name":"delete_node"}}`, &wireAnswer{-32602, `"p"`, `key "params.name" is given twice`}},
	{"refused notification", `{"jsonrpc":"2.0","method":"notifications/cancelled","method":"x"}`, nil},
	{"refused response", `{"jsonrpc":"2.0","id":3,"id":4,"result":{}}`, nil},
	{"notification", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`, nil},
	{"error response with id null", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, nil},
	{"oversize line", `{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"create_node","arguments":{"content":"` +
		strings.Repeat("x", server.MaxStdioMessageBytes) + `"}}}`, &wireAnswer{-32600, "77", "request too large"}},
	{"oversize line, id late", `{"jsonrpc":"2.0","params":{"pad":"` + strings.Repeat("y", server.MaxStdioMessageBytes) + `"},"id":78,"method":"x"}`,
		&wireAnswer{-32600, "null", "request too large"}},
}

// wireTransports start each line transport initialized and return a
// client speaking newline-delimited JSON-RPC to it.
var wireTransports = map[string]func(t *testing.T) *rawClient{
	"stdio": func(t *testing.T) *rawClient { return rawStdio(t, newFixture(t)) },
	"relay": func(t *testing.T) *rawClient {
		c, owners := relayWithOwners(t)
		go func() {
			for o := range owners {
				go answerEverything(o)
			}
		}()
		c.send(t, rawInit)
		c.read(t)
		c.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		return c
	},
	"shim": func(t *testing.T) *rawClient {
		ts, _ := httpServer(t, newFixture(t), server.HTTPOptions{Tokens: tokens})
		clientIn, shimOut := io.Pipe()
		shimIn, clientOut := io.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- server.RunShim(t.Context(), ts.URL+server.MCPPath, writeToken, shimIn, shimOut, quietLogger())
		}()
		t.Cleanup(func() {
			_ = clientOut.Close()
			if err := <-done; err != nil {
				t.Errorf("RunShim: %v", err)
			}
			_ = shimOut.Close()
		})
		c := &rawClient{w: clientOut, r: bufio.NewReaderSize(clientIn, 1<<20)}
		c.send(t, rawInit)
		c.read(t)
		c.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		return c
	},
}

// answerEverything plays a vault's owner that answers every request with
// an empty result.
func answerEverything(o *fakeOwner) {
	for {
		line, err := o.r.ReadBytes('\n')
		if err != nil {
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &m) != nil || m.Method == "" || len(m.ID) == 0 {
			continue
		}
		if _, err := fmt.Fprintf(o.conn, `{"jsonrpc":"2.0","id":%s,"result":{}}`+"\n", m.ID); err != nil {
			return
		}
	}
}

// TestWireTable sends each line of wireCases to each transport, then a
// ping: the answers must be the case's error (or none) and then the
// ping's result, so nothing else was written in between.
func TestWireTable(t *testing.T) {
	for name, start := range wireTransports {
		t.Run(name, func(t *testing.T) {
			c := start(t)
			for i, tc := range wireCases {
				ping := fmt.Sprintf(`"ping-%d"`, i)
				// Written while the answers are read: the relay and the
				// shim answer an oversize line before reading on, and a
				// pipe in process holds nothing.
				sent := make(chan error, 1)
				go func() {
					_, err := io.WriteString(c.w, tc.line+"\n"+`{"jsonrpc":"2.0","id":`+ping+`,"method":"ping"}`+"\n")
					sent <- err
				}()
				if tc.want != nil {
					checkWireError(t, tc.name, c.read(t), *tc.want)
				}
				var got struct {
					ID     json.RawMessage `json:"id"`
					Result json.RawMessage `json:"result"`
				}
				line := c.read(t)
				if json.Unmarshal(line, &got) != nil || string(got.ID) != ping || got.Result == nil {
					t.Errorf("%s: after it, %.300s; want the answer to ping %s", tc.name, line, ping)
				}
				if err := <-sent; err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func checkWireError(t *testing.T, name string, line []byte, want wireAnswer) {
	t.Helper()
	var got struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *rpcErr         `json:"error"`
	}
	if err := json.Unmarshal(line, &got); err != nil || got.Error == nil || got.JSONRPC != "2.0" ||
		got.Error.Code != want.code || string(got.ID) != want.id || !strings.Contains(got.Error.Message, want.msg) {
		t.Errorf("%s: answered %.300s; want error %d for id %s with %q", name, line, want.code, want.id, want.msg)
	}
}

// TestWireHTTPRefusesAsTheLineTransports: the HTTP transport refuses the
// messages jsonrpc.Parse finds invalid with 400 and the same error.
func TestWireHTTPRefusesAsTheLineTransports(t *testing.T) {
	ts, _ := httpServer(t, newFixture(t), server.HTTPOptions{Tokens: tokens})
	session := openSession(t, ts.URL, writeToken)
	for _, tc := range wireCases {
		if tc.want == nil || tc.want.code == -32700 || strings.HasPrefix(tc.name, "oversize") {
			continue // parse errors are mcp-go's; the body limit is HTTP's own (TestBodyLimit)
		}
		resp := postJSON(t, ts.URL, writeToken, session, tc.line)
		body := readAll(t, resp)
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: status %d", tc.name, resp.StatusCode)
		}
		checkWireError(t, tc.name, body, *tc.want)
	}
}

// TestWireRelayOwnerEnds pins what the relay answers when the owner's
// connection ends with requests in flight: after a hand-over they go to
// the next owner and are answered there; without one, each gets -32003
// for its own id.
func TestWireRelayOwnerEnds(t *testing.T) {
	for _, tc := range []struct {
		name     string
		handover bool
	}{{"hand-over", true}, {"killed", false}} {
		t.Run(tc.name, func(t *testing.T) {
			c, owners := relayWithOwners(t)
			first := <-owners
			c.send(t, rawInit)
			first.answer(t, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"vaultgraph","version":"1"}}`)
			c.read(t)
			ids := []string{`7`, `"s-1"`}
			for _, id := range ids {
				c.send(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"get_node","arguments":{}}}`)
				first.read(t)
			}
			if tc.handover {
				first.write(t, `{"jsonrpc":"2.0","method":"`+server.MethodHandover+`"}`)
			}
			_ = first.conn.Close()
			go func() { answerEverything(<-owners) }() // the next owner, once the relay connects again
			got := map[string]string{}
			for range ids {
				var m struct {
					ID     json.RawMessage `json:"id"`
					Result json.RawMessage `json:"result"`
					Error  *rpcErr         `json:"error"`
				}
				line := c.read(t)
				if err := json.Unmarshal(line, &m); err != nil {
					t.Fatalf("%s: %v", line, err)
				}
				switch {
				case tc.handover && m.Result != nil:
					got[string(m.ID)] = "resent"
				case !tc.handover && m.Error != nil && m.Error.Code == -32003 && strings.Contains(m.Error.Message, "(tools/call) stopped before answering"):
					got[string(m.ID)] = "lost"
				default:
					t.Errorf("unexpected %s", line)
				}
			}
			if len(got) != len(ids) {
				t.Errorf("answers by id: %v", got)
			}
		})
	}
}
