package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestResourcesPromptsCompletionsAndLogs: the binary over stdio and HTTP
// offers the vault's notes as resources (list, read, template in any ID
// form), prompts that embed them, completions, and its log lines to a
// client that set a level (issue 26).
func TestResourcesPromptsCompletionsAndLogs(t *testing.T) {
	t.Parallel()
	st := embeddedStore(t)
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			vault := copyVault(t, nil)
			var c *client.Client
			if transport == "stdio" {
				c = startStdio(t, st, vault, legacyProtocol())
			} else {
				h := startHTTP(t, st, vault, "127.0.0.1:0")
				c = httpClient(t, h.url(), rwToken, legacyProtocol())
				initialize(t, c)
			}
			var mu sync.Mutex
			var logs []mcp.JSONRPCNotification
			c.OnNotification(func(n mcp.JSONRPCNotification) {
				if n.Method == "notifications/message" {
					mu.Lock()
					logs = append(logs, n)
					mu.Unlock()
				}
			})
			ctx := t.Context()

			res, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
			if err != nil {
				t.Fatal(err)
			}
			var uris []string
			for _, r := range res.Resources {
				uris = append(uris, r.URI)
			}
			if !strings.Contains(strings.Join(uris, " "), "vault://note/home.md") || len(uris) < 10 {
				t.Fatalf("resources/list: %v", uris)
			}
			want, _ := os.ReadFile(filepath.Join(vault, "concepts", "BM25.md"))
			for _, uri := range []string{"vault://note/concepts/bm25.md", "vault://note/concepts/BM25"} {
				var req mcp.ReadResourceRequest
				req.Params.URI = uri
				got, err := c.ReadResource(ctx, req)
				if err != nil {
					t.Fatalf("read %s: %v", uri, err)
				}
				if tc, ok := got.Contents[0].(mcp.TextResourceContents); !ok || tc.Text != string(want) {
					t.Fatalf("read %s: %+v", uri, got.Contents)
				}
			}

			var creq mcp.CompleteRequest
			creq.Params.Ref = mcp.ResourceReference{Type: "ref/resource", URI: "vault://note/{+id}"}
			creq.Params.Argument.Name, creq.Params.Argument.Value = "id", "concepts/b"
			comp, err := c.Complete(ctx, creq)
			if err != nil || len(comp.Completion.Values) == 0 || comp.Completion.Values[0] != "concepts/bm25.md" {
				t.Fatalf("completion: %+v, %v", comp, err)
			}

			var preq mcp.GetPromptRequest
			preq.Params.Name = "explore_note"
			preq.Params.Arguments = map[string]string{"id": "BM25"}
			prompt, err := c.GetPrompt(ctx, preq)
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := json.Marshal(prompt); !strings.Contains(string(b), `"uri":"vault://note/concepts/bm25.md"`) {
				t.Fatalf("explore_note: %s", b)
			}

			if err := c.SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelInfo}}); err != nil {
				t.Fatal(err)
			}
			getNode(t, c, map[string]any{"id": "home.md"}) // logs "tool call" at INFO
			if !eventually(callTimeout, func() bool {
				mu.Lock()
				defer mu.Unlock()
				for _, n := range logs {
					if data, _ := n.Params.AdditionalFields["data"].(map[string]any); data["msg"] == "tool call" && data["tool"] == "get_node" {
						return true
					}
				}
				return false
			}) {
				t.Fatalf("no notifications/message for the tool call within %s: %+v", callTimeout, logs)
			}
		})
	}
}
