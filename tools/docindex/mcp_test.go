package docindex_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/docindex"
	"github.com/vaultgraph/vaultgraph/embedding/builtin"
	"github.com/vaultgraph/vaultgraph/integration/neo4jtest"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/neo4jstore"
	"github.com/vaultgraph/vaultgraph/server"
	"github.com/vaultgraph/vaultgraph/tools"
	dtools "github.com/vaultgraph/vaultgraph/tools/docindex"
	"github.com/vaultgraph/vaultgraph/tools/graph"
	"github.com/vaultgraph/vaultgraph/tools/toolstest"
	"github.com/vaultgraph/vaultgraph/vault"
)

func TestMain(m *testing.M) { os.Exit(neo4jtest.Main(m)) }

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

const guide = `Intro before any heading.

# Setup

## Authentication

Configure OAuth tokens and the login callback URL for authentication.

## Storage

Backups of the postgres database run nightly to object storage.
`

// env is a vault synced into a store, a docs folder (an extra allowed
// root) and an in-process MCP client of server.New with the graph and
// memory toolsets.
type env struct {
	vault, docs string
	project     string
	client      *client.Client
	store       core.StoreProvider
}

func uniqueProject(t *testing.T) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "docindex-mcp-" + hex.EncodeToString(b[:])
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

func newEnv(t *testing.T, store core.StoreProvider, toolsets []string) *env {
	t.Helper()
	base := t.TempDir()
	e := &env{vault: filepath.Join(base, "vault"), docs: filepath.Join(base, "docs"), project: uniqueProject(t), store: store}
	writeFile(t, filepath.Join(e.vault, "guide.md"), guide)
	require.NoError(t, os.MkdirAll(e.docs, 0o755))

	mirror, err := vault.NewMirror(vault.Config{Root: e.vault, Project: e.project, Store: store, Logger: quiet(), NoProgress: true})
	require.NoError(t, err)
	_, err = mirror.Sync(t.Context())
	require.NoError(t, err)

	emb, err := builtin.New()
	require.NoError(t, err)
	svc, err := docindex.New(docindex.Config{Project: e.project, Store: store, Embedder: emb, Roots: []string{e.vault, e.docs}, Vault: e.vault, Notes: store, Logger: quiet()})
	require.NoError(t, err)

	gsvc := core.NewGraphService(e.project, store, mirror.Writer(), core.WithSearcher(nopSearcher{}))
	all := append(graph.Tools(graph.NewDeps(gsvc, quiet())), dtools.Tools(dtools.Deps{Index: svc, Logger: quiet()})...)
	picked, err := tools.Select(all, tools.Selection{Toolsets: toolsets})
	require.NoError(t, err)
	srv := server.New(server.Options{Tools: picked, Logger: quiet()})
	e.client = toolstest.Client(t, srv)
	return e
}

type nopSearcher struct{}

func (nopSearcher) Search(context.Context, string, int) ([]core.ScoredID, error) { return nil, nil }

// call runs a tool and returns its envelope's data (success) or error
// text (failure), checking that isError and the envelope agree.
func (e *env) call(t *testing.T, name, args string) (data map[string]any, errMsg string) {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = json.RawMessage(args)
	res, err := e.client.CallTool(t.Context(), req)
	require.NoError(t, err, "%s is not a protocol error", name)
	require.Len(t, res.Content, 1)
	text := res.Content[0].(mcp.TextContent).Text
	var body struct {
		Success bool           `json:"success"`
		Data    map[string]any `json:"data"`
		Error   string         `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(text), &body), text)
	require.Equal(t, !body.Success, res.IsError, "isError matches the envelope: %s", text)
	if !body.Success {
		require.NotEmpty(t, body.Error)
		return nil, body.Error
	}
	return body.Data, ""
}

func (e *env) ok(t *testing.T, name, args string) map[string]any {
	t.Helper()
	data, msg := e.call(t, name, args)
	require.Empty(t, msg, "%s %s", name, args)
	return data
}

func (e *env) fail(t *testing.T, name, args string) string {
	t.Helper()
	_, msg := e.call(t, name, args)
	require.NotEmpty(t, msg, "%s %s should fail", name, args)
	return msg
}

func args(v map[string]any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func toolNames(t *testing.T, c *client.Client) []string {
	t.Helper()
	res, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
	require.NoError(t, err)
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

var documentTools = []string{"index_file", "index_directory", "search_with_filters", "search_with_budget", "delete_chunks", "delete_file", "clear_index", "get_index_stats"}

func TestToolNamesAndTheSearchRename(t *testing.T) {
	store := memstore.New()
	both := toolNames(t, newEnv(t, store, []string{tools.ToolsetGraph, tools.ToolsetMemory}).client)
	for _, n := range append(documentTools, "memory_search", "search") {
		assert.Contains(t, both, n)
	}
	alone := toolNames(t, newEnv(t, store, []string{tools.ToolsetMemory}).client)
	for _, n := range append(documentTools, "search") {
		assert.Contains(t, alone, n)
	}
	assert.NotContains(t, alone, "memory_search", "no clash, no rename")

	// search alone is spec 004's search.
	e := newEnv(t, store, []string{tools.ToolsetMemory})
	e.ok(t, "index_file", `{"file_path":"guide.md"}`)
	data := e.ok(t, "search", `{"query":"nightly database backups","n_results":1}`)
	assert.Equal(t, "Setup > Storage", data["results"].([]any)[0].(map[string]any)["metadata"].(map[string]any)["header_path"])
}

func TestEveryDocumentToolOverMCPOnTheEmbeddedStore(t *testing.T) {
	runEveryTool(t, memstore.New())
}

func TestEveryDocumentToolOverMCPOnNeo4j(t *testing.T) {
	srv := neo4jtest.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := neo4jstore.Open(ctx, neo4jstore.Config{URI: srv.URI, User: srv.User, Password: srv.Password, Database: srv.Database, Logger: quiet()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	e := runEveryTool(t, s)

	// Chunks of a vault note are linked to the note in the graph.
	d := srv.Driver(t)
	e.ok(t, "index_file", `{"file_path":"guide.md"}`)
	res, err := neo4j.ExecuteQuery(t.Context(), d,
		`MATCH (c:Chunk {project: $p})-[:PART_OF]->(n:Note {project: $p, id: 'guide.md'}) RETURN count(c) AS n`,
		map[string]any{"p": e.project}, neo4j.EagerResultTransformer, neo4j.ExecuteQueryWithDatabase(srv.Database))
	require.NoError(t, err)
	n, _ := res.Records[0].Get("n")
	assert.EqualValues(t, 3, n, "every chunk of guide.md is PART_OF its note")
}

func runEveryTool(t *testing.T, store core.StoreProvider) *env {
	e := newEnv(t, store, []string{tools.ToolsetGraph, tools.ToolsetMemory})
	guidePath := filepath.Join(e.vault, "guide.md")

	// index_file, its dedup and its errors.
	data := e.ok(t, "index_file", `{"file_path":"guide.md"}`)
	assert.EqualValues(t, 3, data["chunks_created"])
	assert.Equal(t, guidePath, data["source_file"])
	assert.Equal(t, "default", data["namespace"])
	ids := data["chunk_ids"].([]any)
	require.Len(t, ids, 3)
	assert.True(t, strings.HasPrefix(ids[0].(string), "chunk_"))
	again := e.ok(t, "index_file", args(map[string]any{"file_path": guidePath}))
	assert.EqualValues(t, 0, again["chunks_created"])
	assert.Equal(t, true, again["skipped_duplicate"])
	assert.Equal(t, ids, again["chunk_ids"])

	assert.Equal(t, "File not found: "+filepath.Join(e.vault, "nope.md"), e.fail(t, "index_file", `{"file_path":"nope.md"}`))
	writeFile(t, filepath.Join(e.vault, "x.docx"), "x")
	assert.True(t, strings.HasPrefix(e.fail(t, "index_file", `{"file_path":"x.docx"}`), "Unsupported file type: .docx"))
	for _, p := range []string{"/etc/passwd", "../../etc/passwd", os.Getenv("HOME") + "/.bashrc"} {
		msg := e.fail(t, "index_file", args(map[string]any{"file_path": p}))
		assert.True(t, strings.HasPrefix(msg, "Path not allowed: "), msg)
		assert.NotContains(t, msg, "root:", "no file content leaks")
	}
	assert.Contains(t, e.fail(t, "index_file", `{}`), "file_path")
	writeFile(t, filepath.Join(e.vault, "empty.md"), "")
	assert.Equal(t, "File is empty: "+filepath.Join(e.vault, "empty.md"), e.fail(t, "index_file", `{"file_path":"empty.md"}`))
	require.NoError(t, os.Remove(filepath.Join(e.vault, "empty.md")))

	// One rule for parameters (docs/DECISIONS.md): a key a tool does not
	// take is refused and named, a filter it cannot apply too; the original
	// server's async_mode is taken.
	for tool, args := range map[string]string{
		"index_file": `"file_path":"guide.md"`, "index_directory": `"dir_path":"."`, "memory_search": `"query":"x"`,
		"search_with_filters": `"query":"x","filters":{}`, "search_with_budget": `"query":"x","max_tokens":10`,
		"delete_chunks": `"ids":[]`, "delete_file": `"source_file":"nope.md"`, "clear_index": `"confirm":false`, "get_index_stats": ``,
	} {
		if args != "" {
			args += ","
		}
		assert.Contains(t, e.fail(t, tool, "{"+args+`"colour":"red"}`), `unknown argument "colour"`, tool)
	}
	assert.Contains(t, e.fail(t, "search_with_filters", `{"query":"x","filters":{"chunk_index":3}}`), `filters: unknown argument "chunk_index"`)
	e.ok(t, "index_directory", args(map[string]any{"dir_path": e.docs, "async_mode": false}))

	// index_directory: a PDF with pages, a broken file, dedup.
	pdf, err := os.ReadFile("../../docindex/chunk/testdata/two-pages.pdf")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(e.docs, "report.pdf"), pdf, 0o644))
	writeFile(t, filepath.Join(e.docs, "broken.pdf"), "%PDF-1.4 nothing")
	writeFile(t, filepath.Join(e.docs, "tool.py"), "import os\n\ndef backup_database():\n    \"\"\"Dump postgres.\"\"\"\n")
	writeFile(t, filepath.Join(e.docs, "sub", "notes.txt"), "Gardening notes: tomatoes need sun.")
	dir := e.ok(t, "index_directory", args(map[string]any{"dir_path": e.docs, "namespace": "docs"}))
	assert.EqualValues(t, 3, dir["files_indexed"])
	assert.EqualValues(t, 2+2+1, dir["total_chunks"])
	assert.EqualValues(t, 0, dir["skipped_duplicates"])
	failed := dir["failed_files"].([]any)
	require.Len(t, failed, 1)
	assert.Equal(t, filepath.Join(e.docs, "broken.pdf"), failed[0].(map[string]any)["file"])
	dir = e.ok(t, "index_directory", args(map[string]any{"dir_path": e.docs, "namespace": "docs", "recursive": false}))
	assert.EqualValues(t, 0, dir["files_indexed"])
	assert.EqualValues(t, 2, dir["skipped_duplicates"])
	assert.True(t, strings.HasPrefix(e.fail(t, "index_directory", `{"dir_path":"/etc"}`), "Path not allowed: "))
	assert.True(t, strings.HasPrefix(e.fail(t, "index_directory", `{"dir_path":"missing"}`), "Directory not found: "))

	// memory_search (spec 004's search, renamed next to graph's search).
	res := e.ok(t, "memory_search", `{"query":"warehouse inventory count"}`)
	results := res["results"].([]any)
	require.NotEmpty(t, results)
	top := results[0].(map[string]any)
	assert.Equal(t, filepath.Join(e.docs, "report.pdf"), top["metadata"].(map[string]any)["source_file"])
	assert.EqualValues(t, 2, top["metadata"].(map[string]any)["page"])
	assert.Equal(t, "docs", top["namespace"])
	assert.Equal(t, "document", top["doc_type"])
	assert.Equal(t, "warehouse inventory count", res["query"])
	assert.EqualValues(t, len(results), res["total"])
	assert.Positive(t, res["total_tokens"])
	assert.LessOrEqual(t, len(results), 5, "n_results defaults to 5")
	score := top["score"].(float64)
	assert.True(t, score > 0 && score <= 1)
	assert.Equal(t, "Query cannot be empty", e.fail(t, "memory_search", `{"query":"   "}`))
	assert.Contains(t, e.fail(t, "memory_search", `{"query":"x","n_results":51}`), "n_results")
	res = e.ok(t, "memory_search", `{"query":"OAuth login","n_results":1}`)
	hit := res["results"].([]any)[0].(map[string]any)
	assert.Equal(t, "Setup > Authentication", hit["metadata"].(map[string]any)["header_path"])
	assert.Equal(t, "guide.md", hit["metadata"].(map[string]any)["note_id"])

	// search_with_filters: every filter honoured.
	count := func(filters string) int {
		d := e.ok(t, "search_with_filters", `{"query":"postgres backups","n_results":50,"filters":`+filters+`}`)
		return len(d["results"].([]any))
	}
	assert.Equal(t, 8, count(`{}`))
	assert.Equal(t, 5, count(`{"namespace":"docs"}`))
	assert.Equal(t, 3, count(`{"namespace":"default"}`))
	assert.Equal(t, 8, count(`{"doc_type":"document"}`))
	assert.Equal(t, 0, count(`{"doc_type":"memory"}`))
	assert.Equal(t, 2, count(args(map[string]any{"source_file": filepath.Join(e.docs, "report.pdf")})))
	assert.Equal(t, 0, count(`{"namespace":"docs","source_file":"guide.md"}`))
	assert.Contains(t, e.fail(t, "search_with_filters", `{"query":"x"}`), "filters")
	assert.Equal(t, "Invalid doc_type: pdf (use document or memory)",
		e.fail(t, "search_with_filters", `{"query":"x","filters":{"doc_type":"pdf"}}`))
	echoed := e.ok(t, "search_with_filters", `{"query":"x","filters":{"source_file":"sub/../guide.md"}}`)["filters"].(map[string]any)
	assert.Equal(t, guidePath, echoed["source_file"], "a relative source_file is echoed cleaned, as applied")
	assert.Nil(t, echoed["namespace"])
	assert.Equal(t, "Query cannot be empty", e.fail(t, "search_with_filters", `{"query":"","filters":{}}`))

	// search_with_budget: score order while it fits, never over budget.
	full := e.ok(t, "search_with_filters", `{"query":"postgres backups","n_results":50,"filters":{}}`)["results"].([]any)
	for _, budget := range []int{1, 10, 30, 3000} {
		b := e.ok(t, "search_with_budget", args(map[string]any{"query": "postgres backups", "max_tokens": budget}))
		used := int(b["tokens_used"].(float64))
		got := b["results"].([]any)
		assert.LessOrEqual(t, used, budget)
		assert.EqualValues(t, budget-used, b["budget_remaining"])
		assert.EqualValues(t, len(full)-len(got), b["truncated_count"])
		assert.Equal(t, len(got) < len(full), b["truncated"])
		sum := 0
		for i, r := range got {
			assert.Equal(t, full[i].(map[string]any)["id"], r.(map[string]any)["id"])
			sum += docindex.EstimateTokens(r.(map[string]any)["content"].(string))
		}
		assert.Equal(t, sum, used)
	}
	assert.Contains(t, e.fail(t, "search_with_budget", `{"query":"x"}`), "max_tokens")
	assert.Contains(t, e.fail(t, "search_with_budget", `{"query":"x","max_tokens":0}`), "max_tokens")

	// get_index_stats: every field of the spec's example.
	st := e.ok(t, "get_index_stats", `{}`)
	assert.EqualValues(t, 8, st["total_documents"])
	assert.EqualValues(t, 4, st["unique_sources"])
	srcs := st["source_files"].([]any)
	assert.Len(t, srcs, 4)
	assert.True(t, slices.IsSortedFunc(srcs, func(a, b any) int { return strings.Compare(a.(string), b.(string)) }))
	assert.Equal(t, []any{"default", "docs"}, st["namespaces"])
	assert.EqualValues(t, 0, st["memory_count"])
	assert.EqualValues(t, 0, st["golden_rule_count"])

	// delete_chunks, delete_file, clear_index.
	del := e.ok(t, "delete_chunks", args(map[string]any{"ids": []string{ids[0].(string), "chunk_nope"}}))
	assert.EqualValues(t, 1, del["deleted_count"])
	assert.Equal(t, []any{ids[0]}, del["deleted_ids"])
	assert.Contains(t, e.fail(t, "delete_chunks", `{"ids":"chunk_1"}`), "ids")
	df := e.ok(t, "delete_file", `{"source_file":"guide.md"}`)
	assert.EqualValues(t, 2, df["deleted_count"])
	assert.Equal(t, guidePath, df["source_file"])
	df = e.ok(t, "delete_file", `{"source_file":"/gone/never.md"}`)
	assert.EqualValues(t, 0, df["deleted_count"])

	assert.Equal(t, "Safety check: Set confirm=True to delete all documents", e.fail(t, "clear_index", `{"confirm":false}`))
	assert.Contains(t, e.fail(t, "clear_index", `{}`), "confirm")
	assert.EqualValues(t, 8-3, e.ok(t, "get_index_stats", `{}`)["total_documents"], "a refused clear deletes nothing")
	cl := e.ok(t, "clear_index", `{"confirm":true}`)
	assert.EqualValues(t, 5, cl["deleted_count"])
	st = e.ok(t, "get_index_stats", `{}`)
	assert.EqualValues(t, 0, st["total_documents"])
	assert.Equal(t, []any{}, st["source_files"])
	n, err := e.store.CountNotes(t.Context(), e.project)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "notes are not documents")
	return e
}
