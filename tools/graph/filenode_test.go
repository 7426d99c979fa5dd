package graph_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/tools/graph"
)

// unresolvedOf stands for the vault's list of a note's unresolved links.
type unresolvedOf map[string][]string

func (u unresolvedOf) UnresolvedLinks(_ context.Context, id string) []string { return u[id] }

// The graph tools mark a node that is not a note with its kind and MIME
// type, leave a note's shape as spec 000 has it, and list get_node's
// node's unresolved links as written (issue 45.2).
func TestAnswersMarkAttachmentsAndListUnresolvedLinks(t *testing.T) {
	store := memstore.New()
	pic := core.Note{ID: "img/pic.png", Title: "pic.png", Path: "img/pic.png", Keys: []string{"img/pic.png", "pic.png"}}
	board := core.Note{ID: "board.canvas", Title: "board.canvas", Path: "board.canvas", Content: "card",
		Links: []core.Link{{Raw: "a.md", Key: "a", Target: "a.md", Embed: true}}}
	a := note("a.md", "A", "see", nil, "img/pic.png")
	a.Links = append(a.Links, core.Link{Raw: "[[Nowhere]]", Key: "nowhere"})
	if err := store.UpsertNotes(t.Context(), project, []core.Note{pic, board, a}); err != nil {
		t.Fatal(err)
	}
	svc := core.NewGraphService(project, store, nil, core.WithUnresolved(unresolvedOf{"a.md": {"Nowhere"}}),
		core.WithSearcher(fixedHits{{ID: "board.canvas", Score: 0.9}, {ID: "img/pic.png", Score: 0.8}, {ID: "a.md", Score: 0.5}}))
	tools := map[string]func(string) string{}
	for _, tool := range graph.Tools(graph.NewDeps(svc, slog.Default())) {
		tool := tool
		tools[tool.Tool.Name] = func(args string) string { return text(t, call(t, tool.Handler, args), 0) }
	}
	var got map[string]any
	decode := func(s string) map[string]any {
		t.Helper()
		got = nil
		if err := json.Unmarshal([]byte(s), &got); err != nil {
			t.Fatalf("%v: %s", err, s)
		}
		return got
	}

	n := decode(tools["get_node"](`{"id":"img/pic.png","depth":0}`))
	if n["type"] != "attachment" || n["mime"] != "image/png" || n["content"] != "" {
		t.Errorf("attachment: %v", n)
	}
	n = decode(tools["get_node"](`{"id":"board.canvas","depth":0}`))
	if n["type"] != "canvas" || n["mime"] != "application/json" {
		t.Errorf("canvas: %v", n)
	}
	n = decode(tools["get_node"](`{"id":"a.md","depth":1}`))
	if _, ok := n["type"]; ok {
		t.Errorf("a note has no type: %v", n)
	}
	if u, _ := n["unresolved"].([]any); len(u) != 1 || u[0] != "Nowhere" {
		t.Errorf("unresolved: %v", n["unresolved"])
	}
	var neighbors []map[string]any
	if err := json.Unmarshal([]byte(tools["get_neighbors"](`{"id":"img/pic.png","direction":"in"}`)), &neighbors); err != nil {
		t.Fatal(err)
	}
	if len(neighbors) != 1 || neighbors[0]["id"] != "a.md" {
		t.Errorf("which notes embed the image: %v", neighbors)
	}
	n = decode(tools["get_node"](`{"id":"img/pic.png","depth":1}`))
	if nb, _ := n["neighbors"].([]any); len(nb) != 1 {
		t.Errorf("the attachment's neighbours: %v", n)
	}
	if _, ok := decode(tools["get_node"](`{"id":"img/pic.png","depth":1}`))["unresolved"]; ok {
		t.Errorf("no unresolved list where there is none")
	}

	// Hubs may be files, marked; random_node and search answer notes only
	// (docs/DECISIONS.md, "random_node and search answer notes").
	var hubs []map[string]any
	if err := json.Unmarshal([]byte(tools["get_hubs"](`{"metric":"in_degree"}`)), &hubs); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]any{}
	for _, h := range hubs {
		kinds[h["id"].(string)] = h["type"]
	}
	if kinds["img/pic.png"] != "attachment" || kinds["board.canvas"] != "canvas" || kinds["a.md"] != nil {
		t.Errorf("hubs' kinds: %v", hubs)
	}
	for range 20 {
		if n := decode(tools["random_node"](`{}`)); n["id"] != "a.md" {
			t.Fatalf("random_node answered a node that is not a note: %v", n)
		}
	}
	var found []map[string]any
	if err := json.Unmarshal([]byte(tools["search"](`{"query":"card"}`)), &found); err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0]["id"] != "a.md" {
		t.Errorf("search answers notes only: %v", found)
	}
}

// fixedHits is a searcher that finds the same hits for every query.
type fixedHits []core.ScoredID

func (f fixedHits) Search(context.Context, string, int) ([]core.ScoredID, error) { return f, nil }
