package edit_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/activity"
	"github.com/vaultgraph/vaultgraph/core"
	kbase "github.com/vaultgraph/vaultgraph/kb"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/noteedit"
	"github.com/vaultgraph/vaultgraph/tools"
	"github.com/vaultgraph/vaultgraph/tools/edit"
	"github.com/vaultgraph/vaultgraph/tools/graph"
	kbtools "github.com/vaultgraph/vaultgraph/tools/kb"
	"github.com/vaultgraph/vaultgraph/tools/toolstest"
	"github.com/vaultgraph/vaultgraph/vault"
)

const project = "p"

// fixture is a vault mirrored into memstore with its change log written
// by an activity.Recorder, the edit and graph toolsets over the vault's
// writer (as the server wires them), and an MCP client in process.
type fixture struct {
	root   string
	store  *memstore.Store
	mirror *vault.Mirror
	client *client.Client
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func newFixture(t *testing.T, files map[string]string, opts ...noteedit.Option) *fixture {
	t.Helper()
	return build(t, files, false, opts...)
}

// newKBFixture is newFixture with the kb toolset, and edit_note checked
// by the knowledge base service as the server wires it.
func newKBFixture(t *testing.T, files map[string]string) *fixture {
	t.Helper()
	return build(t, files, true)
}

func build(t *testing.T, files map[string]string, withKB bool, opts ...noteedit.Option) *fixture {
	t.Helper()
	root := t.TempDir()
	for rel, content := range files {
		writeFile(t, root, rel, content)
	}
	store := memstore.New()
	rec := activity.NewRecorder(project, store, quietLogger())
	mirror, err := vault.NewMirror(vault.Config{Root: root, Project: project, Store: store, Logger: quietLogger(), NoProgress: true, Changes: rec.Record})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mirror.Close() })
	if _, err := mirror.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	var all []tools.Tool
	if withKB {
		svc, err := kbase.New(kbase.Config{Root: root, Files: mirror.Writer(), Logger: quietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = svc.Close() })
		opts = append(opts, noteedit.WithCheck(svc.CheckNoteWrite))
		all = kbtools.Tools(kbtools.NewDeps(svc, quietLogger()))
	}
	all = append(all, edit.Tools(edit.Deps{
		Editor:  noteedit.NewService(mirror.Writer(), opts...),
		Changes: activity.NewService(project, store, rec),
		Logger:  quietLogger(),
	})...)
	all = append(all, graph.Tools(graph.NewDeps(core.NewGraphService(project, store, mirror.Writer()), quietLogger()))...)
	return &fixture{root: root, store: store, mirror: mirror, client: connect(t, all)}
}

// connect serves ts on an MCP server and returns an initialized
// in-process client.
func connect(t *testing.T, ts []tools.Tool) *client.Client {
	return toolstest.Client(t, toolstest.Server(ts))
}

func writeFile(t *testing.T, root, rel, content string) {
	t.Helper()
	abs := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) read(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(f.root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// call calls a tool with args (a JSON object as a client sends it) and
// returns the result and its text.
func call(t *testing.T, c *client.Client, name string, args any) (*mcp.CallToolResult, string) {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
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
func ok(t *testing.T, c *client.Client, name string, args any, out any) {
	t.Helper()
	res, text := call(t, c, name, args)
	if res.IsError {
		t.Fatalf("%s failed: %s", name, text)
	}
	if out == nil {
		return
	}
	structured, _ := json.Marshal(res.StructuredContent)
	if !jsonEqual(structured, []byte(text)) {
		t.Fatalf("%s: structuredContent %s differs from the text %s", name, structured, text)
	}
	if err := json.Unmarshal([]byte(text), out); err != nil {
		t.Fatalf("%s: %v in %s", name, err, text)
	}
}

// fail calls a tool that must fail and returns its error body: spec
// 000's shape, and no structuredContent.
func fail(t *testing.T, c *client.Client, name string, args any) edit.ErrorBody {
	t.Helper()
	res, text := call(t, c, name, args)
	if !res.IsError {
		t.Fatalf("%s succeeded, want an error: %s", name, text)
	}
	if res.StructuredContent != nil {
		t.Errorf("%s: an error result carries structuredContent", name)
	}
	var er edit.ErrorResponse
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&er); err != nil || er.Error.Code == "" || er.Error.Message == "" {
		t.Fatalf("%s: error text is not the spec envelope (%v): %s", name, err, text)
	}
	return er.Error
}

func jsonEqual(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return bytes.Equal(ja, jb)
}
