package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/server"
	"github.com/vaultgraph/vaultgraph/tools"
)

// firstSyncServer serves a read tool answering obj and a write tool,
// behind fs.
func firstSyncServer(fs *server.FirstSync, obj string) *fixture {
	read := mcp.NewTool("read", mcp.WithReadOnlyHintAnnotation(true))
	write := mcp.NewTool("write", mcp.WithReadOnlyHintAnnotation(false), mcp.WithDestructiveHintAnnotation(false))
	answer := func(text string) mcpserver.ToolHandlerFunc {
		return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(text), nil
		}
	}
	return &fixture{mcp: server.New(server.Options{Version: "test", Logger: quietLogger(), FirstSync: fs, Tools: []tools.Tool{
		{Toolset: tools.ToolsetGraph, Tool: read, Handler: answer(obj)},
		{Toolset: tools.ToolsetGraph, Tool: write, Handler: answer(`{"written":true}`)},
	}})}
}

// warningsOf returns the _warnings of a tools/call answer line.
func warningsOf(t *testing.T, line []byte) []string {
	t.Helper()
	var msg struct {
		Result mcp.CallToolResult `json:"result"`
	}
	if err := json.Unmarshal(line, &msg); err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	var all []string
	for _, c := range msg.Result.Content {
		tc, ok := mcp.AsTextContent(c)
		if !ok {
			continue
		}
		var w struct {
			Warnings []string `json:"_warnings"`
		}
		if err := json.Unmarshal([]byte(tc.Text), &w); err != nil {
			t.Fatalf("content %q: %v", tc.Text, err)
		}
		all = append(all, w.Warnings...)
	}
	return all
}

// Issue 24: during the first sync a read answers from the store with a
// notice (once the store is known to hold an earlier run's notes), a read
// with a progress token hears progress until the sync ends, and so does a
// write; after it, nothing is added.
func TestFirstSyncGate(t *testing.T) {
	t.Run("warm read answers with a notice", func(t *testing.T) {
		fs := server.NewFirstSync()
		fs.Warm()
		c := rawStdio(t, firstSyncServer(fs, `{"a":1}`))
		w := warningsOf(t, c.call(t, "read", `{}`))
		if len(w) != 1 || !strings.Contains(w[0], "still syncing") {
			t.Fatalf("warnings %q, want the first-sync notice", w)
		}
	})
	t.Run("the notice joins the answer's own warnings", func(t *testing.T) {
		fs := server.NewFirstSync()
		fs.Warm()
		c := rawStdio(t, firstSyncServer(fs, `{"a":1,"_warnings":["broken link"]}`))
		w := warningsOf(t, c.call(t, "read", `{}`))
		if len(w) != 2 || w[0] != "broken link" || !strings.Contains(w[1], "still syncing") {
			t.Fatalf("warnings %q", w)
		}
	})
	t.Run("an array answer gets the notice after it", func(t *testing.T) {
		fs := server.NewFirstSync()
		fs.Warm()
		c := rawStdio(t, firstSyncServer(fs, `[1,2]`))
		line := c.call(t, "read", `{}`)
		if !strings.Contains(string(line), `"text":"[1,2]"`) || !strings.Contains(string(line), `{\"_warnings\":[\"vaultgraph is still syncing`) {
			t.Fatalf("array answer: %s", line)
		}
	})
	t.Run("a write waits for the sync, reporting progress", func(t *testing.T) {
		fs := server.NewFirstSync()
		fs.Warm() // changes nothing for a write
		c := rawStdio(t, firstSyncServer(fs, `{}`))
		c.send(t, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"write","arguments":{},"_meta":{"progressToken":"w"}}}`)
		if line := string(c.read(t)); !strings.Contains(line, `"progressToken":"w"`) {
			t.Fatalf("first message %s, want progress", line)
		}
		fs.Finish()
		line := ""
		for !strings.Contains(line, `"id":8`) {
			line = string(c.read(t))
		}
		if !strings.Contains(line, "written") || strings.Contains(line, "still syncing") {
			t.Fatalf("write answered %s", line)
		}
	})
	t.Run("progress until the sync ends, then a plain answer", func(t *testing.T) {
		fs := server.NewFirstSync()
		c := rawStdio(t, firstSyncServer(fs, `{"a":1}`))
		c.send(t, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read","arguments":{},"_meta":{"progressToken":"fs"}}}`)
		line := string(c.read(t))
		if !strings.Contains(line, `"method":"notifications/progress"`) || !strings.Contains(line, `"progressToken":"fs"`) || !strings.Contains(line, "first sync") {
			t.Fatalf("first message %s, want progress", line)
		}
		fs.Finish()
		for {
			line = string(c.read(t))
			if strings.Contains(line, `"id":7`) {
				break
			}
		}
		if strings.Contains(line, "still syncing") || !strings.Contains(line, `\"a\":1`) {
			t.Fatalf("answer after the sync: %s", line)
		}
		if w := warningsOf(t, c.call(t, "read", `{}`)); w != nil {
			t.Fatalf("warnings after the sync: %q", w)
		}
	})
}
