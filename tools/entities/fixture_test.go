package entities_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/entity"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/tools"
	"github.com/vaultgraph/vaultgraph/tools/entities"
	"github.com/vaultgraph/vaultgraph/vault"
)

// Two projects in one store, as a server with two vaults has them: alpha
// and beta both hold an entity with slug "attention" (and the same
// frontmatter id, sharedID), and the rest differs.
const sharedID = "11111111-2222-4333-8444-555555555555"

var alphaFiles = map[string]string{
	"guides/intro.md": "---\ntype: guide\ntitle: Intro to Transformers\nsummary: Start here\nstatus: published\ndifficulty: beginner\n" +
		"updatedAt: 2025-01-01T00:00:00Z\n" +
		"relations:\n  GUIDE_USES_CONCEPT: [\"[[attention]]\", {target: \"[[softmax]]\", notes: \"weights\"}]\n  GUIDE_REFERENCES_SOURCE: [\"[[paper]]\"]\n---\nBody.\n",
	"concepts/attention.md": "---\ntype: concept\nid: " + sharedID + "\ntitle: Attention (alpha)\nslug: attention\nconceptKind: comparison\n" +
		"updatedAt: 2025-01-01T00:00:00Z\ncomparisonTargets: [\"[[softmax]]\", \"[[plain]]\"]\n" +
		"relations:\n  CONCEPT_RELATES_TO_CONCEPT: [\"[[softmax]]\"]\n---\n",
	"concepts/softmax.md": "---\ntype: concept\ntitle: softmax\nupdatedAt: 2025-01-01T00:00:00Z\n---\n",
	"paper.md":            "---\ntitle: A paper\n---\nnot an entity\n",
	"plain.md":            "just a note\n",
	"broken.md":           "---\ntype: guide\nstatus: finished\n---\nan invalid status: not an entity\n",
}

var betaFiles = map[string]string{
	"attention.md": "---\ntype: concept\nid: " + sharedID + "\ntitle: Attention (beta)\nslug: attention\nsummary: beta only\n---\n",
	"other.md":     "---\ntype: news\ntitle: Beta news about attention\nrelations:\n  NEWS_REFERENCES_CONCEPT: [\"[[attention]]\"]\n---\n",
}

// fixture is the toolset over two mirrored vaults.
type fixture struct {
	store        *memstore.Store
	alpha, beta  core.Project
	deps         entities.Deps
	tools        map[string]tools.Tool
	alphaEntity  map[string]string // title -> entity id
	warnings     *warnLog
	outputSchema map[string]*jsonschema.Schema
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func writeVault(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	return root
}

// mirror syncs a vault into store under key, through the entity annotator.
// warnLog keeps the entity warnings the annotator reports.
type warnLog struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnLog) Add(msgs ...string) { w.mu.Lock(); w.msgs = append(w.msgs, msgs...); w.mu.Unlock() }

func mirror(t *testing.T, store core.StoreProvider, key string, files map[string]string, warnings *warnLog) {
	t.Helper()
	m, err := vault.NewMirror(vault.Config{
		Root: writeVault(t, files), Project: key, Logger: quietLogger(), NoProgress: true,
		Store: entity.NewAnnotator(store, entity.Options{}, warnings.Add),
	})
	require.NoError(t, err)
	_, err = m.Sync(t.Context())
	require.NoError(t, err)
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{store: memstore.New(), warnings: &warnLog{}}
	f.alpha = core.Project{Key: "alpha", ID: core.ProjectID("alpha"), Name: "alpha vault", Slug: "alpha", Description: "first"}
	f.beta = core.Project{Key: "beta", ID: core.ProjectID("beta"), Name: "Beta vault", Slug: "beta"}
	mirror(t, f.store, f.alpha.Key, alphaFiles, f.warnings)
	mirror(t, f.store, f.beta.Key, betaFiles, f.warnings)
	catalog := core.NewProjectCatalog(f.store, []core.Project{f.beta, f.alpha}).
		WithClock(func() time.Time { return time.Date(2025, 6, 7, 8, 9, 10, 0, time.UTC) })
	require.NoError(t, catalog.Sync(t.Context()))
	f.deps = entities.Deps{Projects: catalog, Entities: f.store, Logger: quietLogger()}
	f.tools = map[string]tools.Tool{}
	for _, tool := range entities.Tools(f.deps) {
		f.tools[tool.Tool.Name] = tool
	}
	f.outputSchema = outputSchemas(t)
	f.alphaEntity = map[string]string{}
	res := f.ok(t, entities.SearchEntitiesName, map[string]any{"projectId": f.alpha.ID, "query": "a", "limit": 50})
	var out entities.SearchEntitiesOutput
	require.NoError(t, json.Unmarshal(res, &out))
	for _, e := range out.Entities {
		f.alphaEntity[e.Title] = e.ID
	}
	return f
}

// outputSchemas compiles the spec's output schemas with format assertions
// on, so uuid and date-time are checked too.
func outputSchemas(t *testing.T) map[string]*jsonschema.Schema {
	t.Helper()
	out := map[string]*jsonschema.Schema{}
	for _, spec := range entities.Specs() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(entities.Schema(spec.Name, "output")))
		require.NoError(t, err)
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		url := "mem:///" + spec.Name + ".output.json"
		require.NoError(t, c.AddResource(url, doc))
		s, err := c.Compile(url)
		require.NoError(t, err)
		out[spec.Name] = s
	}
	return out
}

// call runs a tool with args (any JSON value; nil for none) and returns the
// text of its answer and whether it is an error.
func (f *fixture) call(t *testing.T, name string, args any) ([]byte, bool) {
	t.Helper()
	return callTool(t, f.tools[name], args)
}

func callTool(t *testing.T, tool tools.Tool, args any) ([]byte, bool) {
	t.Helper()
	require.NotNil(t, tool.Handler, "tool %s", tool.Tool.Name)
	var req mcp.CallToolRequest
	req.Params.Name = tool.Tool.Name
	if args != nil {
		raw, err := json.Marshal(args)
		require.NoError(t, err)
		req.Params.Arguments = json.RawMessage(raw)
	}
	res, err := tool.Handler(context.Background(), req)
	require.NoError(t, err, "handlers answer every failure as a result")
	require.Len(t, res.Content, 1)
	text, ok := res.Content[0].(mcp.TextContent)
	require.True(t, ok)
	if !res.IsError {
		require.JSONEq(t, text.Text, string(res.StructuredContent.(json.RawMessage)), "structuredContent equals the text")
	}
	return []byte(text.Text), res.IsError
}

// ok calls a tool that must succeed and checks its answer against the
// spec's output schema.
func (f *fixture) ok(t *testing.T, name string, args any) []byte {
	t.Helper()
	raw, isErr := f.call(t, name, args)
	require.False(t, isErr, "%s %v: %s", name, args, raw)
	requireValid(t, f.outputSchema[name], raw)
	return raw
}

func requireValid(t *testing.T, schema *jsonschema.Schema, raw []byte) {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	require.NoError(t, err)
	require.NoError(t, schema.Validate(v), "answer must satisfy the spec's output schema: %s", raw)
}

// fail calls a tool that must fail and returns its envelope, checked for
// the spec's shape.
func (f *fixture) fail(t *testing.T, name string, args any) entities.ErrorBody {
	t.Helper()
	raw, isErr := f.call(t, name, args)
	require.True(t, isErr, "%s %v should fail: %s", name, args, raw)
	return envelope(t, raw)
}

func envelope(t *testing.T, raw []byte) entities.ErrorBody {
	t.Helper()
	var shape map[string]map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &shape), "%s", raw)
	require.Len(t, shape, 1, "only the error key: %s", raw)
	for _, k := range []string{"code", "message", "details"} {
		require.Contains(t, shape["error"], k, "%s", raw)
	}
	var env entities.ErrorResponse
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&env))
	require.NotEmpty(t, env.Error.Message)
	require.NotNil(t, env.Error.Details)
	return env.Error
}

func vaultWarnings() *warnLog { return &warnLog{} }
