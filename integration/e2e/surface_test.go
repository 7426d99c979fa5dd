package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/vaultgraph/vaultgraph/tools"
)

// pixelPNG is a 1x1 PNG, an attachment of the test vault.
const pixelPNG = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82"

// TestResourcesPromptsCompletionsAndLogs: the binary over stdio and HTTP
// offers the vault's notes as resources (list, read, template in any ID
// form), prompts that embed them, completions, and its log lines to a
// client that set a level (issue 26).
func TestResourcesPromptsCompletionsAndLogs(t *testing.T) {
	t.Parallel()
	st := embeddedStore(t)
	for _, kind := range []string{"stdio", "http"} {
		t.Run(kind, func(t *testing.T) {
			vault := copyVault(t, map[string]string{"assets/pixel.png": pixelPNG})
			var c *client.Client
			if kind == "stdio" {
				c = startStdio(t, st, vault, legacyProtocol())
			} else {
				h := startHTTP(t, st, vault, "127.0.0.1:0")
				// A GET stream carries what the server sends unasked.
				//lint:ignore SA1019 clients of protocol 2025-11-25 (most of today's) use the GET stream; this tests them
				tr, err := transport.NewStreamableHTTP(h.url(), transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + rwToken}), transport.WithContinuousListening())
				if err != nil {
					t.Fatal(err)
				}
				c = client.NewClient(tr, legacyProtocol())
				t.Cleanup(func() { _ = c.Close() })
				if err := c.Start(t.Context()); err != nil {
					t.Fatal(err)
				}
				initialize(t, c)
			}
			var mu sync.Mutex
			var logs, changes []mcp.JSONRPCNotification
			c.OnNotification(func(n mcp.JSONRPCNotification) {
				mu.Lock()
				defer mu.Unlock()
				switch n.Method {
				case "notifications/message":
					logs = append(logs, n)
				case "notifications/resources/updated", "notifications/resources/list_changed":
					changes = append(changes, n)
				}
			})
			changed := func(method, uri string) bool {
				mu.Lock()
				defer mu.Unlock()
				for _, n := range changes {
					if n.Method == method && (uri == "" || n.Params.AdditionalFields["uri"] == uri) {
						return true
					}
				}
				return false
			}
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

			// Attachments: listed after the notes, read as a base64 blob.
			var blobURIs []string
			for cursor, pages := mcp.Cursor(""), 0; pages == 0 || cursor != ""; pages++ {
				var req mcp.ListResourcesRequest
				req.Params.Cursor = cursor
				page, err := c.ListResourcesByPage(ctx, req)
				if err != nil || pages > 50 {
					t.Fatalf("resources/list page %d: %v", pages, err)
				}
				for _, r := range page.Resources {
					if strings.HasPrefix(r.URI, "vault://file/") {
						blobURIs = append(blobURIs, r.URI+" "+r.MIMEType)
					}
				}
				cursor = page.NextCursor
			}
			if strings.Join(blobURIs, ",") != "vault://file/assets/pixel.png image/png" {
				t.Fatalf("attachments listed: %v", blobURIs)
			}
			var breq mcp.ReadResourceRequest
			breq.Params.URI = "vault://file/assets/pixel.png"
			blob, err := c.ReadResource(ctx, breq)
			if err != nil {
				t.Fatal(err)
			}
			if b, ok := blob.Contents[0].(mcp.BlobResourceContents); !ok || b.MIMEType != "image/png" || b.Blob != base64.StdEncoding.EncodeToString([]byte(pixelPNG)) {
				t.Fatalf("read attachment: %+v", blob.Contents)
			}

			// structuredContent validates against the tool's outputSchema.
			listed, err := c.ListTools(ctx, mcp.ListToolsRequest{})
			if err != nil {
				t.Fatal(err)
			}
			checked := false
			for _, tool := range listed.Tools {
				if tool.Name != "delete_node" {
					continue
				}
				checked = true
				schema, err := tools.CompileSchema(tool.Name, tools.OutputSchemaJSON(tool))
				if err != nil {
					t.Fatalf("delete_node's outputSchema: %v", err)
				}
				var call mcp.CallToolRequest
				call.Params.Name, call.Params.Arguments = "delete_node", map[string]any{"id": "no-such-note.md"}
				res, err := c.CallTool(ctx, call)
				if err != nil || res.IsError || res.StructuredContent == nil {
					t.Fatalf("delete_node: %+v, %v", res, err)
				}
				raw, _ := json.Marshal(res.StructuredContent)
				v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
				if err != nil || schema.Validate(v) != nil {
					t.Fatalf("delete_node's structuredContent %s does not validate: %v", raw, schema.Validate(v))
				}
			}
			if !checked {
				t.Fatal("delete_node is not listed")
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

			//lint:ignore SA1019 logging/setLevel is what clients of protocol 2025-11-25 send; this tests it
			if err := c.SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelInfo}}); err != nil {
				t.Fatal(err)
			}
			// A read that answers is logged at DEBUG, below serve's level;
			// an error result is logged at INFO.
			if r := callTool(t, c, "get_node", map[string]any{"id": " "}); !r.isError {
				t.Fatalf("get_node with a blank id: %s, want an error result", r.text)
			}
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

			// Subscriptions: an edit on disk reaches the subscriber (in
			// another ID form than the one it subscribed with), a new
			// note changes the list.
			var sreq mcp.SubscribeRequest
			sreq.Params.URI = "vault://note/concepts/BM25"
			//lint:ignore SA1019 resources/subscribe is what clients of protocol 2025-11-25 send; this tests it
			if err := c.Subscribe(ctx, sreq); err != nil {
				t.Fatal(err)
			}
			writeFile(t, vault, "concepts/BM25.md", "# BM25\n\nEdited on disk while subscribed.")
			if !eventually(watchTimeout, func() bool { return changed("notifications/resources/updated", "vault://note/concepts/bm25.md") }) {
				t.Fatalf("no resources/updated within %s of the edit: %+v", watchTimeout, changes)
			}
			writeFile(t, vault, "concepts/Brand New.md", "# Brand New")
			if !eventually(watchTimeout, func() bool { return changed("notifications/resources/list_changed", "") }) {
				t.Fatalf("no resources/list_changed within %s of a new note: %+v", watchTimeout, changes)
			}
		})
	}
}
