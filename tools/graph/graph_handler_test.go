package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/tools/graph"
	"github.com/vaultgraph/vaultgraph/tools/toolsnaps"
)

const project = "p"

func note(id, title, content string, tags []string, links ...string) core.Note {
	n := core.Note{ID: id, Title: title, Path: id, Content: content, Tags: tags}
	for _, l := range links {
		n.Links = append(n.Links, core.Link{Raw: "[[" + l + "]]", Key: strings.TrimSuffix(l, ".md"), Target: l})
	}
	return n
}

// memWriter is a NoteWriter over the store that counts its calls; the
// vault's real writer is exercised end to end in the server tests.
type memWriter struct {
	store *memstore.Store
	mu    sync.Mutex
	calls int
}

func (w *memWriter) count() int { w.mu.Lock(); defer w.mu.Unlock(); return w.calls }
func (w *memWriter) called()    { w.mu.Lock(); w.calls++; w.mu.Unlock() }

func (w *memWriter) Create(ctx context.Context, n core.NewNote) (*core.Note, error) {
	w.called()
	if strings.HasPrefix(n.Directory, "..") {
		return nil, fmt.Errorf("memwriter: %q: %w", n.Directory, core.ErrInvalidPath)
	}
	id := strings.ToLower(path.Join(n.Directory, n.Title+".md"))
	if _, err := w.store.GetNote(ctx, project, id); err == nil {
		return nil, fmt.Errorf("memwriter: %s: %w", id, core.ErrExists)
	}
	nn := note(id, n.Title, n.Content, n.Tags)
	return &nn, w.store.UpsertNotes(ctx, project, []core.Note{nn})
}

func (w *memWriter) Update(ctx context.Context, id string, u core.NoteUpdate) (*core.Note, *core.RenameReport, error) {
	w.called()
	n, err := w.store.GetNote(ctx, project, id)
	if err != nil {
		return nil, nil, err
	}
	var report *core.RenameReport
	if u.Title != nil {
		newID := strings.ToLower(path.Join(path.Dir(id), *u.Title+".md"))
		report = &core.RenameReport{OldID: id, NewID: newID, FilesChanged: 1, LinksChanged: 2}
		if _, err := w.store.DeleteNotes(ctx, project, []string{id}); err != nil {
			return nil, nil, err
		}
		n.ID, n.Title = newID, *u.Title
	}
	if u.Content != nil {
		n.Content = *u.Content
	}
	if u.Tags != nil {
		n.Tags = *u.Tags
	}
	return n, report, w.store.UpsertNotes(ctx, project, []core.Note{*n})
}

func (w *memWriter) Delete(ctx context.Context, id string) (bool, error) {
	w.called()
	n, err := w.store.DeleteNotes(ctx, project, []string{id})
	return n > 0, err
}

type fixedSearcher []core.ScoredID

func (f fixedSearcher) Search(context.Context, string, int) ([]core.ScoredID, error) { return f, nil }

type env struct {
	store  *memstore.Store
	writer *memWriter
	logs   *bytes.Buffer
	tools  map[string]server.ToolHandlerFunc
}

func newEnv(t *testing.T) *env {
	t.Helper()
	store := memstore.New()
	err := store.UpsertNotes(t.Context(), project, []core.Note{
		note("notes/graphcore.md", "GraphCore", "The orchestration hub of <Roux> & co", []string{"architecture", "core"}, "notes/storeprovider.md"),
		note("notes/storeprovider.md", "StoreProvider", "Data persistence", []string{"provider"}),
		note("notes/index.md", "Index", "", nil, "notes/graphcore.md"),
	})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{store: store, writer: &memWriter{store: store}, logs: &bytes.Buffer{}, tools: map[string]server.ToolHandlerFunc{}}
	svc := core.NewGraphService(project, store, e.writer,
		core.WithSearcher(fixedSearcher{{ID: "notes/index.md", Score: 0.25}}))
	logger := slog.New(slog.NewTextHandler(e.logs, nil))
	for _, tool := range graph.Tools(graph.NewDeps(svc, logger)) {
		e.tools[tool.Tool.Name] = tool.Handler
	}
	return e
}

// call invokes a tool with arguments given as JSON, as a client sends them.
func call(t *testing.T, h server.ToolHandlerFunc, args string) *mcp.CallToolResult {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.RawArguments = json.RawMessage(args)
	res, err := h(t.Context(), req)
	if err != nil {
		t.Fatalf("handler returned a Go error: %v", err)
	}
	return res
}

func text(t *testing.T, res *mcp.CallToolResult, i int) string {
	t.Helper()
	if len(res.Content) <= i {
		t.Fatalf("result has %d contents, want index %d", len(res.Content), i)
	}
	tc, ok := res.Content[i].(mcp.TextContent)
	if !ok {
		t.Fatalf("content %d is %T", i, res.Content[i])
	}
	return tc.Text
}

func TestResponsesHaveTheSpecShapes(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name, tool, args, want string
		structured             bool
	}{
		{"get_node depth 0", "get_node", `{"id":"notes/graphcore.md"}`,
			`{"id":"notes/graphcore.md","title":"GraphCore","content":"The orchestration hub of <Roux> & co","tags":["architecture","core"],"links":[{"id":"notes/storeprovider.md","title":"StoreProvider"}]}`, true},
		{"get_node depth 1 marks each neighbour's direction", "get_node", `{"id":"Notes/GraphCore.md","depth":1}`,
			`{"id":"notes/graphcore.md","title":"GraphCore","content":"The orchestration hub of <Roux> & co","tags":["architecture","core"],"links":[{"id":"notes/storeprovider.md","title":"StoreProvider"}],` +
				`"incomingCount":1,"outgoingCount":1,"neighbors":[` +
				`{"id":"notes/storeprovider.md","title":"StoreProvider","content":"Data persistence","tags":["provider"],"links":[],"direction":"out"},` +
				`{"id":"notes/index.md","title":"Index","content":"","tags":[],"links":[{"id":"notes/graphcore.md","title":"GraphCore"}],"direction":"in"}]}`, true},
		{"get_node missing is null", "get_node", `{"id":"nope.md"}`, `null`, false},
		{"get_neighbors", "get_neighbors", `{"id":"notes/graphcore.md","direction":"in"}`,
			`[{"id":"notes/index.md","title":"Index","content":"","tags":[],"links":[{"id":"notes/graphcore.md","title":"GraphCore"}]}]`, false},
		{"get_neighbors none is []", "get_neighbors", `{"id":"notes/storeprovider.md","direction":"out"}`, `[]`, false},
		{"find_path", "find_path", `{"source":"notes/index.md","target":"notes/storeprovider.md"}`,
			`{"path":["notes/index.md","notes/graphcore.md","notes/storeprovider.md"],"length":2}`, true},
		{"find_path none is null", "find_path", `{"source":"notes/storeprovider.md","target":"notes/index.md"}`, `null`, false},
		{"get_hubs", "get_hubs", `{"limit":1}`, `[{"id":"notes/graphcore.md","title":"GraphCore","score":1}]`, false},
		{"search_by_tags", "search_by_tags", `{"tags":["PROVIDER"]}`,
			`[{"id":"notes/storeprovider.md","title":"StoreProvider","content":"Data persistence","tags":["provider"],"links":[]}]`, false},
		{"search_by_tags none is []", "search_by_tags", `{"tags":["x"]}`, `[]`, false},
		{"random_node with no match is null", "random_node", `{"tags":["x"]}`, `null`, false},
		{"search", "search", `{"query":"hub"}`,
			`[{"id":"notes/index.md","title":"Index","content":"","tags":[],"links":[{"id":"notes/graphcore.md","title":"GraphCore"}],"score":0.25}]`, false},
		{"delete_node missing", "delete_node", `{"id":"nope.md"}`, `{"deleted":false}`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := call(t, e.tools[c.tool], c.args)
			if res.IsError {
				t.Fatalf("error result: %s", text(t, res, 0))
			}
			if got := text(t, res, 0); got != c.want {
				t.Fatalf("got\n%s\nwant\n%s", got, c.want)
			}
			if c.structured != (res.StructuredContent != nil) {
				t.Fatalf("structuredContent present = %v, want %v", res.StructuredContent != nil, c.structured)
			}
			if c.structured {
				raw, _ := json.Marshal(res.StructuredContent)
				if same, err := toolsnaps.EqualJSON(raw, []byte(c.want)); err != nil || !same {
					t.Fatalf("structuredContent %s differs from the text", raw)
				}
			}
		})
	}
}

func TestWritesAnswerTheCreatedAndUpdatedNode(t *testing.T) {
	e := newEnv(t)
	res := call(t, e.tools["create_node"], `{"title":"Meeting Notes","content":"# Hi","directory":"meetings"}`)
	if got := text(t, res, 0); got != `{"id":"meetings/meeting notes.md","title":"Meeting Notes","content":"# Hi","tags":[],"links":[]}` {
		t.Fatalf("create: %s", got)
	}
	res = call(t, e.tools["update_node"], `{"id":"notes/storeprovider.md","title":"Store"}`)
	if got := text(t, res, 0); got != `{"id":"notes/store.md","title":"Store","content":"Data persistence","tags":["provider"],"links":[],"renamed":{"from":"notes/storeprovider.md","to":"notes/store.md","filesChanged":1,"linksChanged":2,"relinked":[]}}` {
		t.Fatalf("rename: %s", got)
	}
	res = call(t, e.tools["update_node"], `{"id":"notes/store.md","tags":[]}`)
	if got := text(t, res, 0); strings.Contains(got, "renamed") || !strings.Contains(got, `"tags":[]`) {
		t.Fatalf("update without rename: %s", got)
	}
	if got := text(t, call(t, e.tools["delete_node"], `{"id":"NOTES/STORE.MD"}`), 0); got != `{"deleted":true}` {
		t.Fatalf("delete: %s", got)
	}
}

func errorOf(t *testing.T, res *mcp.CallToolResult) graph.ErrorBody {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want an error result, got %s", text(t, res, 0))
	}
	var er graph.ErrorResponse
	if err := json.Unmarshal([]byte(text(t, res, 0)), &er); err != nil {
		t.Fatalf("error text is not the spec shape: %v", err)
	}
	return er.Error
}

func TestErrorCodes(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name, tool, args, code, msgHas string
	}{
		{"missing required", "get_node", `{}`, graph.CodeInvalidParams, "missing property 'id'"},
		{"wrong JSON type", "get_node", `{"id":42}`, graph.CodeInvalidParams, "id: got number, want string"},
		{"depth out of range", "get_node", `{"id":"a.md","depth":2}`, graph.CodeInvalidParams, "depth: maximum"},
		{"limit 0", "get_neighbors", `{"id":"a.md","limit":0}`, graph.CodeInvalidParams, "limit: minimum"},
		{"limit max+1", "search_by_tags", `{"tags":["a"],"limit":101}`, graph.CodeInvalidParams, "limit: maximum"},
		{"enum", "get_hubs", `{"metric":"betweenness"}`, graph.CodeInvalidParams, "metric"},
		{"empty tags", "search_by_tags", `{"tags":[]}`, graph.CodeInvalidParams, "minItems"},
		{"tags of the wrong type", "random_node", `{"tags":"idea"}`, graph.CodeInvalidParams, "tags: got string, want array"},
		{"blank id", "get_node", `{"id":" "}`, graph.CodeInvalidParams, "id must not be empty"},
		{"update without fields", "update_node", `{"id":"notes/index.md"}`, graph.CodeInvalidParams, "at least one of title, content or tags"},
		{"directory escaping the vault", "create_node", `{"title":"x","content":"","directory":"../etc"}`, graph.CodeInvalidParams, "inside the vault"},
		{"create over an existing node", "create_node", `{"title":"GraphCore","content":"","directory":"notes"}`, graph.CodeNodeExists, `"GraphCore"`},
		{"update a missing node", "update_node", `{"id":"nope.md","content":"x"}`, graph.CodeNodeNotFound, `"nope.md"`},
		// Issue 22: a misspelled key used to be ignored (create_node with
		// "id" wrote at the vault root).
		{"unknown key on a write", "create_node", `{"title":"x","content":"","id":"notes/x.md"}`, graph.CodeInvalidParams, `unknown argument "id" (this tool takes content, directory, tags, title)`},
		{"unknown key on a read", "get_node", `{"id":"notes/index.md","dept":1}`, graph.CodeInvalidParams, `unknown argument "dept"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := errorOf(t, call(t, e.tools[c.tool], c.args))
			if body.Code != c.code || !strings.Contains(body.Message, c.msgHas) {
				t.Fatalf("got %+v, want code %s with %q", body, c.code, c.msgHas)
			}
		})
	}
}

// failingReader fails like a store whose database is down.
type failingReader struct{ graph.Reader }

var errDriver = errors.New("neo4j: dial tcp 10.1.2.3:7687: connection refused (user=admin)")

func (failingReader) GetNode(context.Context, string, int) (*core.NodeDetail, error) {
	return nil, fmt.Errorf("neo4jstore: get note: %w", core.NewProviderError("get note", errDriver))
}

func (failingReader) Hubs(context.Context, core.HubMetric, int) ([]core.Hub, error) {
	return nil, errors.New("unexpected: " + errDriver.Error())
}

func TestProviderErrorsHideTheCauseAndLogItOnce(t *testing.T) {
	var logs bytes.Buffer
	d := graph.Deps{Reader: failingReader{}, Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	byName := map[string]server.ToolHandlerFunc{}
	for _, tool := range graph.Tools(d) {
		byName[tool.Tool.Name] = tool.Handler
	}
	for _, name := range []string{"get_node", "get_hubs"} {
		logs.Reset()
		args := map[string]string{"get_node": `{"id":"a.md"}`, "get_hubs": `{}`}[name]
		res := call(t, byName[name], args)
		body := errorOf(t, res)
		if body.Code != graph.CodeProviderError || strings.Contains(text(t, res, 0), "10.1.2.3") || strings.Contains(text(t, res, 0), "admin") {
			t.Fatalf("%s: %s", name, text(t, res, 0))
		}
		if n := strings.Count(logs.String(), "connection refused"); n != 1 {
			t.Fatalf("%s: cause logged %d times:\n%s", name, n, logs.String())
		}
	}
}

func TestToolsOfferSearchAndWritesOnlyWithTheirProviders(t *testing.T) {
	names := func(d graph.Deps) string {
		var out []string
		for _, tool := range graph.Tools(d) {
			out = append(out, tool.Tool.Name)
		}
		return strings.Join(out, ",")
	}
	store := memstore.New()
	readOnly := graph.NewDeps(core.NewGraphService(project, store, nil), nil)
	readOnly.Writer = nil
	if got := names(readOnly); got != "get_node,get_neighbors,find_path,get_hubs,search_by_tags,random_node" {
		t.Fatalf("without searcher and writer: %s", got)
	}
	full := graph.NewDeps(core.NewGraphService(project, store, &memWriter{store: store}, core.WithSearcher(fixedSearcher{})), nil)
	if got := names(full); !strings.HasPrefix(got, "search,") || !strings.HasSuffix(got, "create_node,update_node,delete_node") {
		t.Fatalf("with both: %s", got)
	}
}

// TestReadOnlyHintsAreTruthful calls every tool that declares itself
// read-only and checks that nothing was written; every other tool must
// write when it succeeds.
func TestReadOnlyHintsAreTruthful(t *testing.T) {
	e := newEnv(t)
	store := e.store
	args := map[string]string{
		"search": `{"query":"q"}`, "get_node": `{"id":"notes/graphcore.md","depth":1}`,
		"get_neighbors": `{"id":"notes/graphcore.md"}`, "find_path": `{"source":"notes/index.md","target":"notes/graphcore.md"}`,
		"get_hubs": `{"metric":"pagerank"}`, "search_by_tags": `{"tags":["core"]}`, "random_node": `{}`,
		"create_node": `{"title":"T","content":"c"}`, "update_node": `{"id":"notes/index.md","content":"new"}`,
		"delete_node": `{"id":"notes/index.md"}`,
	}
	fingerprint := func() string {
		h, err := store.NoteHashes(t.Context(), project)
		if err != nil {
			t.Fatal(err)
		}
		notes, err := store.NotesByTags(t.Context(), project, []string{"core", "provider"}, core.TagModeAny, 100)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(h, notes)
	}
	for _, tool := range graph.Tools(graph.NewDeps(core.NewGraphService(project, store, e.writer, core.WithSearcher(fixedSearcher{})), nil)) {
		name := tool.Tool.Name
		before, calls := fingerprint(), e.writer.count()
		res := call(t, tool.Handler, args[name])
		if res.IsError {
			t.Fatalf("%s failed: %s", name, text(t, res, 0))
		}
		wrote := e.writer.count() != calls
		if tool.ReadOnly() && (wrote || fingerprint() != before) {
			t.Errorf("%s declares readOnlyHint but wrote", name)
		}
		if !tool.ReadOnly() && !wrote {
			t.Errorf("%s declares it may write but did not call the writer", name)
		}
	}
}

// get_node depth 1 shares its 20 neighbour slots between the directions
// (issue 22): a note with 25 outgoing links and 15 backlinks shows 10 of
// each, where the outgoing links used to fill all 20.
func TestGetNodeShowsBacklinksOfANoteWithManyLinks(t *testing.T) {
	e := newEnv(t)
	hub := note("hub.md", "Hub", "", nil)
	var notes []core.Note
	for i := range 25 {
		out := fmt.Sprintf("out%02d.md", i)
		hub.Links = append(hub.Links, core.Link{Raw: "[[" + out + "]]", Key: strings.TrimSuffix(out, ".md"), Target: out})
		notes = append(notes, note(out, out, "", nil))
		if i < 15 {
			notes = append(notes, note(fmt.Sprintf("in%02d.md", i), "in", "", nil, "hub.md"))
		}
	}
	if err := e.store.UpsertNotes(t.Context(), project, append(notes, hub)); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Context struct {
			Neighbors []struct {
				ID        string `json:"id"`
				Direction string `json:"direction"`
			} `json:"neighbors"`
			In  int `json:"incomingCount"`
			Out int `json:"outgoingCount"`
		}
	}
	if err := json.Unmarshal([]byte(text(t, call(t, e.tools["get_node"], `{"id":"hub.md","depth":1}`), 0)), &got.Context); err != nil {
		t.Fatal(err)
	}
	dirs := map[string]int{}
	for _, n := range got.Context.Neighbors {
		dirs[n.Direction]++
	}
	if dirs["out"] != 10 || dirs["in"] != 10 || got.Context.In != 15 || got.Context.Out != 25 {
		t.Fatalf("neighbours %v, counts in %d out %d", dirs, got.Context.In, got.Context.Out)
	}
	if first := got.Context.Neighbors[10]; first.ID != "in00.md" || first.Direction != "in" {
		t.Fatalf("incoming ones follow the outgoing ones, by ID: %+v", first)
	}
}
