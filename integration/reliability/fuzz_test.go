package reliability

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/activity"
	"github.com/vaultgraph/vaultgraph/core"
	kbase "github.com/vaultgraph/vaultgraph/kb"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/noteedit"
	"github.com/vaultgraph/vaultgraph/tools"
	edittools "github.com/vaultgraph/vaultgraph/tools/edit"
	"github.com/vaultgraph/vaultgraph/tools/graph"
	kbtools "github.com/vaultgraph/vaultgraph/tools/kb"
	"github.com/vaultgraph/vaultgraph/vault"
)

const canary = "outside the vault"

// toolFixture builds every graph, knowledge-base and edit tool on the embedded
// store and a copy of the example vault, next to a file that must never
// change. Handlers are called directly, so a panic reaches the fuzzer
// (the MCP server would turn it into an internal error).
func toolFixture(f *testing.F) (ts []tools.Tool, outside string) {
	f.Helper()
	dir := f.TempDir()
	root := filepath.Join(dir, "vault")
	src := "../../examples/vault"
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(root, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(root, rel), b, 0o644)
	})
	if err != nil {
		f.Fatal(err)
	}
	outside = filepath.Join(dir, "outside.md")
	if err := os.WriteFile(outside, []byte(canary), 0o644); err != nil {
		f.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	store := memstore.New()
	rec := activity.NewRecorder("default", store, logger)
	m, err := vault.NewMirror(vault.Config{Root: root, Project: "default", Store: store, Logger: logger, Changes: rec.Record})
	if err != nil {
		f.Fatal(err)
	}
	if _, err := m.Sync(context.Background()); err != nil {
		f.Fatal(err)
	}
	svc := core.NewGraphService("default", store, m.Writer())
	ts = graph.Tools(graph.NewDeps(svc, logger))
	kbSvc, err := kbase.New(kbase.Config{Root: m.Root(), Files: m.Writer(), Logger: logger})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = kbSvc.Close() })
	ts = append(ts, kbtools.Tools(kbtools.NewDeps(kbSvc, logger))...)
	ts = append(ts, edittools.Tools(edittools.Deps{
		Editor: noteedit.NewService(m.Writer(), noteedit.WithCheck(kbSvc.CheckNoteWrite)), Changes: activity.NewService("default", store, rec), Logger: logger,
	})...)
	return ts, outside
}

// FuzzToolArguments sends arbitrary JSON arguments to every tool of the
// graph, knowledge-base and edit toolsets: no handler panics, every answer is a
// JSON text, every error answer has the spec's {"error": {"code",
// "message"}} shape, and nothing outside the vault changes.
func FuzzToolArguments(f *testing.F) {
	ts, outside := toolFixture(f)
	seeds := []string{
		`{}`, `null`, `[]`, `{"id":"home.md"}`, `{"id":"home.md","depth":1}`, `{"id":42}`, `{"id":"../x"}`,
		`{"title":"T","content":"c","tags":["a","#b"],"directory":"d"}`, `{"title":"../../x","content":"c"}`,
		`{"id":"home.md","title":"Renamed"}`, `{"tags":["concept"],"mode":"all","limit":100}`, `{"metric":"pagerank","limit":50}`,
		`{"source":"home.md","target":"concepts/bm25.md"}`, `{"name":"k","description":"","subfolder":"k","organization_rules":""}`,
		`{"knowledge_base_name":"k","note_path":"a.md","note_content":"x"}`, `{"knowledge_base_name":"k","note_path":"../a.md"}`,
		`{"kb_name":"k","subfolder":"k/x","rules":{"frontmatter":{"required_fields":[{"name":"t","type":"string"}]}}}`,
		`{"knowledge_base_name":"k","note_path":"a.md","offset":-1,"limit":1e9}`, `{"limit":"5"}`, `{"limit":1.5}`,
		`{"id":"home.md","operation":"append","heading":"## x > y","content":"- z"}`,
		`{"id":"home.md","operation":"replace_text","old_text":"the","new_text":"","expected_count":3}`,
		`{"id":"home.md","operation":"set_frontmatter","key":"k","value":{"a":[1,2.5,null]}}`,
		`{"since":"7d","limit":2,"cursor":"00000000000000000001-000000000000"}`,
	}
	for i, s := range seeds {
		for j := range ts {
			if (i+j)%3 == 0 { // every seed on a third of the tools keeps the corpus small
				f.Add(uint8(j), []byte(s))
			}
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, args []byte) {
		tool := ts[int(which)%len(ts)]
		var req mcp.CallToolRequest
		req.Params.Name = tool.Tool.Name
		if json.Valid(args) {
			req.Params.Arguments = json.RawMessage(args)
		} else {
			req.Params.Arguments = map[string]any{"raw": string(args)}
		}
		res, err := tool.Handler(context.Background(), req)
		if err != nil {
			t.Fatalf("%s %s: handler error %v (errors are results)", tool.Tool.Name, args, err)
		}
		if res == nil || len(res.Content) == 0 {
			t.Fatalf("%s %s: empty result", tool.Tool.Name, args)
		}
		text, ok := mcp.AsTextContent(res.Content[0])
		if !ok || !json.Valid([]byte(text.Text)) {
			t.Fatalf("%s %s: answer is not JSON: %.200v", tool.Tool.Name, args, res.Content[0])
		}
		if res.IsError {
			var e struct {
				Error struct{ Code, Message string }
			}
			if json.Unmarshal([]byte(text.Text), &e) != nil || e.Error.Code == "" || e.Error.Message == "" {
				t.Fatalf("%s %s: error %.300s is not {error: {code, message}}", tool.Tool.Name, args, text.Text)
			}
		}
		if b, err := os.ReadFile(outside); err != nil || string(b) != canary || strings.Contains(text.Text, canary) {
			t.Fatalf("%s %s: touched the file outside the vault", tool.Tool.Name, args)
		}
	})
}
