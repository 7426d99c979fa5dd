package kb_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/core"
	kbase "github.com/vaultgraph/vaultgraph/kb"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/tools"
	"github.com/vaultgraph/vaultgraph/tools/graph"
	"github.com/vaultgraph/vaultgraph/tools/kb"
	"github.com/vaultgraph/vaultgraph/tools/toolstest"
	"github.com/vaultgraph/vaultgraph/vault"
)

const project = "p"

// fixture is a vault mirrored into memstore, the kb toolset over the
// vault's writer (as the server wires it) next to the graph toolset, and
// an MCP client talking to them in process.
type fixture struct {
	root   string
	store  *memstore.Store
	client *client.Client
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func newFixture(t *testing.T, files map[string]string) *fixture {
	t.Helper()
	root := t.TempDir()
	for rel, content := range files {
		writeFile(t, filepath.Join(root, filepath.FromSlash(rel)), content)
	}
	store := memstore.New()
	mirror, err := vault.NewMirror(vault.Config{Root: root, Project: project, Store: store, Logger: quietLogger(), NoProgress: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mirror.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	svc, err := kbase.New(kbase.Config{Root: root, Files: mirror.Writer(), Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close() })
	all := kb.Tools(kb.NewDeps(svc, quietLogger()))
	// As cmd/vaultgraph wires it: the graph tools' writes pass the
	// knowledge bases' folder constraints.
	all = append(all, graph.Tools(graph.NewDeps(core.NewGraphService(project, store, mirror.Writer().WithCheck(svc.CheckNoteWrite)), quietLogger()))...)
	return &fixture{root: root, store: store, client: connect(t, all)}
}

// connect serves ts on an MCP server and returns an initialized
// in-process client.
func connect(t *testing.T, ts []tools.Tool) *client.Client {
	return toolstest.Client(t, toolstest.Server(ts))
}

func writeFile(t *testing.T, abs, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) read(t *testing.T, rel string) (string, bool) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(f.root, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(data), true
}

// call calls a tool with args (a JSON object as a client sends it) and
// returns the result and its text.
func call(t *testing.T, c *client.Client, name, args string) (*mcp.CallToolResult, string) {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = name
	if args != "" {
		req.Params.Arguments = json.RawMessage(args)
	}
	res, err := c.CallTool(t.Context(), req)
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("call %s: %d contents", name, len(res.Content))
	}
	tc, ok := mcp.AsTextContent(res.Content[0])
	if !ok {
		t.Fatalf("call %s: content is %T", name, res.Content[0])
	}
	return res, tc.Text
}

// ok calls a tool that must succeed and decodes its answer into out (when
// not nil); the structured content must equal the text.
func ok(t *testing.T, c *client.Client, name, args string, out any) string {
	t.Helper()
	res, text := call(t, c, name, args)
	if res.IsError {
		t.Fatalf("%s failed: %s", name, text)
	}
	structured, _ := json.Marshal(res.StructuredContent)
	if !jsonEqual(t, structured, []byte(text)) {
		t.Fatalf("%s: structuredContent %s differs from the text %s", name, structured, text)
	}
	if out != nil {
		if err := json.Unmarshal([]byte(text), out); err != nil {
			t.Fatalf("%s: %v in %s", name, err, text)
		}
	}
	return text
}

// fail calls a tool that must fail and returns its error body.
func fail(t *testing.T, c *client.Client, name, args string) kb.ErrorBody {
	t.Helper()
	res, text := call(t, c, name, args)
	if !res.IsError {
		t.Fatalf("%s succeeded, want an error: %s", name, text)
	}
	var er kb.ErrorResponse
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&er); err != nil || er.Error.Code == "" || er.Error.Message == "" {
		t.Fatalf("%s: error text is not the spec envelope (%v): %s", name, err, text)
	}
	return er.Error
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return bytes.Equal(ja, jb)
}
