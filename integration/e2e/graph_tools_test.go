package e2e

import (
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
)

// Error codes of spec 000.
const (
	invalidParams = "INVALID_PARAMS"
	nodeExists    = "NODE_EXISTS"
	nodeNotFound  = "NODE_NOT_FOUND"
)

// truncated is what spec 000 appends to cut content.
const truncated = "... [truncated]"

// Files added to the example vault to reach the truncation limits: a note
// one character over the primary limit (10,000), in a two-byte character
// so that a limit counted in bytes shows, and a note linking to it, whose
// neighbour lists carry it cut at 500 (lists) and 200 (neighbours).
var bigFiles = map[string]string{
	"big/Over Primary.md": strings.Repeat("é", 10_000) + "x",
	"big/List.md":         "Points at [[Over Primary]].",
}

// TestGraphTools calls every tool of the graph toolset through the real
// binary, for each store and transport, on the example vault: the answers
// the spec calls "not errors", each error code a client can cause, the
// limits, the truncation, and the writes as they land on disk.
func TestGraphTools(t *testing.T) {
	t.Parallel()
	forEachTarget(t, bigFiles, func(t *testing.T, c *client.Client, vault string) {
		t.Run("get_node", func(t *testing.T) { testGetNode(t, c) })
		t.Run("get_neighbors", func(t *testing.T) { testGetNeighbors(t, c) })
		t.Run("find_path", func(t *testing.T) { testFindPath(t, c) })
		t.Run("get_hubs", func(t *testing.T) { testGetHubs(t, c) })
		t.Run("search_by_tags", func(t *testing.T) { testSearchByTags(t, c) })
		t.Run("random_node", func(t *testing.T) { testRandomNode(t, c) })
		t.Run("arguments of the wrong JSON type", func(t *testing.T) { testWrongTypes(t, c) })
		t.Run("truncation", func(t *testing.T) { testTruncation(t, c) })
		// The writes change the graph the reads above expect: last.
		t.Run("create_node", func(t *testing.T) { testCreateNode(t, c, vault) })
		t.Run("update_node", func(t *testing.T) { testUpdateNode(t, c, vault) })
		t.Run("delete_node", func(t *testing.T) { testDeleteNode(t, c, vault) })
	})
}

func testGetNode(t *testing.T, c *client.Client) {
	t.Run("depth 0 in any letter case", func(t *testing.T) {
		n := getNode(t, c, map[string]any{"id": "HOME.MD"})
		if n == nil {
			t.Fatal("get_node HOME.MD is null")
		}
		if n.ID != "home.md" || n.Title != "Home" || !strings.HasPrefix(n.Content, "# Home\n") {
			t.Errorf("node %q %q %.40q", n.ID, n.Title, n.Content)
		}
		if !slices.Equal(n.Tags, []string{"index", "moc"}) {
			t.Errorf("tags %v", n.Tags)
		}
		wantLinks := []link{
			{"projects/search service.md", "Search Service"},
			{"concepts/inverted index.md", "Inverted Index"},
			{"concepts/embeddings.md", "Embeddings"},
			{"projects/vault migration.md", "Vault Migration"},
			{"people/ada lovelace.md", "Ada Lovelace"},
			{"people/grace hopper.md", "Grace Hopper"},
			{"daily/2024-03-04.md", "2024-03-04"},
		}
		if !slices.Equal(n.Links, wantLinks) {
			t.Errorf("links\n got %v\nwant %v", n.Links, wantLinks)
		}
		if n.IncomingCount != nil || n.Neighbors != nil {
			t.Error("depth 0 carries neighbour context")
		}
	})
	t.Run("depth 1", func(t *testing.T) {
		n := getNode(t, c, map[string]any{"id": "Projects/Search Service.md", "depth": 1})
		if n == nil || n.ID != "projects/search service.md" {
			t.Fatalf("get_node: %+v", n)
		}
		if n.IncomingCount == nil || *n.IncomingCount != 6 || n.OutgoingCount == nil || *n.OutgoingCount != 7 {
			t.Errorf("incomingCount %v outgoingCount %v, want 6 and 7", n.IncomingCount, n.OutgoingCount)
		}
		var out, in []string
		for i, nb := range n.Neighbors {
			switch nb.Direction {
			case "out":
				if len(in) > 0 {
					t.Errorf("outgoing neighbour %s after an incoming one", nb.ID)
				}
				out = append(out, nb.ID)
			case "in":
				in = append(in, nb.ID)
			default:
				t.Errorf("neighbour %d %s: direction %q", i, nb.ID, nb.Direction)
			}
		}
		wantOut := []string{"concepts/caching.md", "concepts/chunking.md", "concepts/embeddings.md", "concepts/inverted index.md",
			"concepts/latency budget.md", "concepts/reciprocal rank fusion.md", "people/ada lovelace.md"}
		// Nodes linked both ways are listed once, as outgoing.
		wantIn := []string{"home.md", "projects/vault migration.md"}
		if !slices.Equal(sorted(out), wantOut) || !slices.Equal(sorted(in), wantIn) {
			t.Errorf("neighbours out %v in %v, want out %v in %v", out, in, wantOut, wantIn)
		}
	})
	t.Run("missing id is null", func(t *testing.T) {
		wantText(t, c, "null", "get_node", map[string]any{"id": "no/such note.md"})
	})
	t.Run("depth 2 is refused", func(t *testing.T) {
		wantCode(t, c, invalidParams, "get_node", map[string]any{"id": "home.md", "depth": 2})
	})
	t.Run("id is required", func(t *testing.T) {
		wantCode(t, c, invalidParams, "get_node", map[string]any{})
	})
}

func testGetNeighbors(t *testing.T, c *client.Client) {
	neighbors := func(t *testing.T, args map[string]any) []string {
		t.Helper()
		var ns []node
		callTool(t, c, "get_neighbors", args).decode(t, &ns)
		return ids(ns)
	}
	for dir, want := range map[string][]string{
		"in":   {"concepts/inverted index.md", "concepts/reciprocal rank fusion.md", "people/ada lovelace.md"},
		"out":  {"concepts/inverted index.md"},
		"both": {"concepts/inverted index.md", "concepts/reciprocal rank fusion.md", "people/ada lovelace.md"},
	} {
		t.Run("direction "+dir, func(t *testing.T) {
			if got := neighbors(t, map[string]any{"id": "concepts/BM25.md", "direction": dir}); !slices.Equal(sorted(got), want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
	t.Run("both is the default", func(t *testing.T) {
		if got := neighbors(t, map[string]any{"id": "concepts/bm25.md"}); len(got) != 3 {
			t.Errorf("got %v", got)
		}
	})
	t.Run("limits", func(t *testing.T) {
		if got := neighbors(t, map[string]any{"id": "home.md", "limit": 2}); len(got) != 2 {
			t.Errorf("limit 2: %d neighbours", len(got))
		}
		if got := neighbors(t, map[string]any{"id": "home.md", "limit": 50}); len(got) != 7 {
			t.Errorf("limit 50: %d neighbours, want all 7", len(got))
		}
		wantCode(t, c, invalidParams, "get_neighbors", map[string]any{"id": "home.md", "limit": 0})
		wantCode(t, c, invalidParams, "get_neighbors", map[string]any{"id": "home.md", "limit": 51})
		wantCode(t, c, invalidParams, "get_neighbors", map[string]any{"id": "home.md", "direction": "sideways"})
	})
	t.Run("no neighbours is []", func(t *testing.T) {
		wantText(t, c, "[]", "get_neighbors", map[string]any{"id": "home.md", "direction": "in"})
		wantText(t, c, "[]", "get_neighbors", map[string]any{"id": "no/such note.md"})
	})
}

func testFindPath(t *testing.T, c *client.Client) {
	t.Run("a path", func(t *testing.T) {
		var p path
		callTool(t, c, "find_path", map[string]any{"source": "Home.md", "target": "concepts/bm25.md"}).decode(t, &p)
		if p.Length != 2 || len(p.Path) != 3 || p.Path[0] != "home.md" || p.Path[2] != "concepts/bm25.md" {
			t.Fatalf("path %+v", p)
		}
		// Both two-step paths are shortest; either must be a real one.
		if mid := p.Path[1]; mid != "concepts/inverted index.md" && mid != "people/ada lovelace.md" {
			t.Errorf("path through %s, which does not link home.md to bm25.md", mid)
		}
	})
	t.Run("same node", func(t *testing.T) {
		wantText(t, c, `{"path":["home.md"],"length":0}`, "find_path", map[string]any{"source": "home.md", "target": "HOME.md"})
	})
	t.Run("no path is null", func(t *testing.T) {
		// Nothing links to home.md, and links are followed forwards.
		wantText(t, c, "null", "find_path", map[string]any{"source": "concepts/bm25.md", "target": "home.md"})
	})
	t.Run("source and target are required", func(t *testing.T) {
		wantCode(t, c, invalidParams, "find_path", map[string]any{"source": "home.md"})
	})
}

func testGetHubs(t *testing.T, c *client.Client) {
	hubs := func(t *testing.T, args map[string]any) []hub {
		t.Helper()
		var hs []hub
		callTool(t, c, "get_hubs", args).decode(t, &hs)
		return hs
	}
	t.Run("in_degree is the default", func(t *testing.T) {
		hs := hubs(t, map[string]any{})
		if len(hs) != 10 {
			t.Fatalf("%d hubs, want the default 10", len(hs))
		}
		if hs[0] != (hub{"projects/search service.md", "Search Service", 6}) || hs[1] != (hub{"concepts/embeddings.md", "Embeddings", 5}) {
			t.Errorf("top hubs %v", hs[:2])
		}
		for i := 1; i < len(hs); i++ {
			if hs[i].Score > hs[i-1].Score {
				t.Errorf("hubs not by descending score: %v", hs)
			}
		}
	})
	t.Run("out_degree", func(t *testing.T) {
		hs := hubs(t, map[string]any{"metric": "out_degree", "limit": 2})
		if got := sorted(ids(hs)); !slices.Equal(got, []string{"home.md", "projects/search service.md"}) || hs[0].Score != 7 || hs[1].Score != 7 {
			t.Errorf("out_degree hubs %v", hs)
		}
	})
	t.Run("pagerank", func(t *testing.T) {
		hs := hubs(t, map[string]any{"metric": "pagerank", "limit": 3})
		if got := ids(hs); !slices.Equal(got, []string{"concepts/inverted index.md", "projects/search service.md", "concepts/embeddings.md"}) {
			t.Errorf("pagerank hubs %v", hs)
		}
		for _, h := range hs {
			if h.Score <= 0 || h.Score >= 1 {
				t.Errorf("pagerank score %v of %s", h.Score, h.ID)
			}
		}
	})
	t.Run("limits", func(t *testing.T) {
		if hs := hubs(t, map[string]any{"limit": 50}); len(hs) != 15 {
			t.Errorf("limit 50: %d hubs, want all 15 notes", len(hs))
		}
		wantCode(t, c, invalidParams, "get_hubs", map[string]any{"limit": 0})
		wantCode(t, c, invalidParams, "get_hubs", map[string]any{"limit": 51})
		wantCode(t, c, invalidParams, "get_hubs", map[string]any{"metric": "betweenness"})
	})
}

func testSearchByTags(t *testing.T, c *client.Client) {
	search := func(t *testing.T, args map[string]any) []string {
		t.Helper()
		var ns []node
		callTool(t, c, "search_by_tags", args).decode(t, &ns)
		return sorted(ids(ns))
	}
	t.Run("any, in any letter case", func(t *testing.T) {
		want := []string{"concepts/bm25.md", "concepts/chunking.md", "concepts/inverted index.md",
			"concepts/reciprocal rank fusion.md", "projects/search service.md"}
		if got := search(t, map[string]any{"tags": []string{"SEARCH", "Ranking"}}); !slices.Equal(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}
	})
	t.Run("all", func(t *testing.T) {
		if got := search(t, map[string]any{"tags": []string{"SEARCH", "Ranking"}, "mode": "all"}); !slices.Equal(got, []string{"concepts/bm25.md"}) {
			t.Errorf("got %v", got)
		}
	})
	t.Run("no match is []", func(t *testing.T) {
		wantText(t, c, "[]", "search_by_tags", map[string]any{"tags": []string{"no-such-tag"}})
	})
	t.Run("limits", func(t *testing.T) {
		if got := search(t, map[string]any{"tags": []string{"concept"}, "limit": 2}); len(got) != 2 {
			t.Errorf("limit 2: %v", got)
		}
		if got := search(t, map[string]any{"tags": []string{"concept"}, "limit": 100}); len(got) != 7 {
			t.Errorf("limit 100: %d notes, want all 7 concepts", len(got))
		}
		wantCode(t, c, invalidParams, "search_by_tags", map[string]any{"tags": []string{"concept"}, "limit": 101})
		wantCode(t, c, invalidParams, "search_by_tags", map[string]any{"tags": []string{"concept"}, "mode": "most"})
	})
	t.Run("at least one tag", func(t *testing.T) {
		wantCode(t, c, invalidParams, "search_by_tags", map[string]any{"tags": []string{}})
		wantCode(t, c, invalidParams, "search_by_tags", map[string]any{})
	})
}

func testRandomNode(t *testing.T, c *client.Client) {
	random := func(t *testing.T, args map[string]any) *node {
		t.Helper()
		r := callTool(t, c, "random_node", args)
		if r.text == "null" && !r.isError {
			return nil
		}
		var n node
		r.decode(t, &n)
		return &n
	}
	t.Run("with tags", func(t *testing.T) {
		for range 5 {
			n := random(t, map[string]any{"tags": []string{"Person"}})
			if n == nil || (n.ID != "people/ada lovelace.md" && n.ID != "people/grace hopper.md") {
				t.Fatalf("random person: %+v", n)
			}
		}
	})
	t.Run("without tags", func(t *testing.T) {
		n := random(t, map[string]any{})
		if n == nil || n.ID == "" || n.Title == "" {
			t.Fatalf("random node: %+v", n)
		}
		if getNode(t, c, map[string]any{"id": n.ID}) == nil {
			t.Errorf("random node %s does not exist", n.ID)
		}
	})
	t.Run("no match is null", func(t *testing.T) {
		wantText(t, c, "null", "random_node", map[string]any{"tags": []string{"no-such-tag"}})
	})
}

func testWrongTypes(t *testing.T, c *client.Client) {
	wantCode(t, c, invalidParams, "get_neighbors", map[string]any{"id": "home.md", "limit": "5"})
	wantCode(t, c, invalidParams, "get_node", map[string]any{"id": 42})
	wantCode(t, c, invalidParams, "get_node", map[string]any{"id": "home.md", "depth": 0.5})
	wantCode(t, c, invalidParams, "search_by_tags", map[string]any{"tags": "search"})
	wantCode(t, c, invalidParams, "create_node", map[string]any{"title": "t", "content": "c", "tags": []any{1}})
}

func testTruncation(t *testing.T, c *client.Client) {
	t.Run("primary node at 10000 characters", func(t *testing.T) {
		n := getNode(t, c, map[string]any{"id": "big/over primary.md"})
		if want := strings.Repeat("é", 10_000) + truncated; n == nil || n.Content != want {
			t.Errorf("content of a 10001-character note: %d characters ending %q", len([]rune(contentOf(n))), tail(contentOf(n)))
		}
	})
	t.Run("list results at 500", func(t *testing.T) {
		var ns []node
		callTool(t, c, "get_neighbors", map[string]any{"id": "big/list.md", "direction": "out"}).decode(t, &ns)
		if want := strings.Repeat("é", 500) + truncated; len(ns) != 1 || ns[0].Content != want {
			t.Errorf("neighbours %d, first content %q", len(ns), tail(ns[0].Content))
		}
	})
	t.Run("neighbours in context at 200", func(t *testing.T) {
		n := getNode(t, c, map[string]any{"id": "big/list.md", "depth": 1})
		if want := strings.Repeat("é", 200) + truncated; n == nil || len(n.Neighbors) != 1 || n.Neighbors[0].Content != want {
			t.Errorf("neighbours of big/list.md: %+v", n)
		}
	})
	t.Run("short content is whole", func(t *testing.T) {
		if n := getNode(t, c, map[string]any{"id": "big/list.md"}); n == nil || n.Content != bigFiles["big/List.md"] {
			t.Errorf("content %+v", n)
		}
	})
}

func contentOf(n *node) string {
	if n == nil {
		return ""
	}
	return n.Content
}

// tail is the end of s, for messages about truncation.
func tail(s string) string {
	r := []rune(s)
	return string(r[max(0, len(r)-20):])
}

func testCreateNode(t *testing.T, c *client.Client, vault string) {
	args := map[string]any{
		"title":     "Meeting Notes 2024-01-15",
		"content":   "# Meeting Notes\n\nDiscussed [[Search Service]] timeline.",
		"tags":      []string{"meeting", "project-x"},
		"directory": "meetings",
	}
	// The file name is the title, as in Obsidian; the ID its path lowercased.
	const id, file = "meetings/meeting notes 2024-01-15.md", "meetings/Meeting Notes 2024-01-15.md"
	t.Run("creates the file", func(t *testing.T) {
		var n node
		callTool(t, c, "create_node", args).decode(t, &n)
		if n.ID != id || n.Title != "Meeting Notes 2024-01-15" || !slices.Equal(n.Tags, []string{"meeting", "project-x"}) {
			t.Errorf("created %+v", n)
		}
		if !slices.Equal(n.Links, []link{{"projects/search service.md", "Search Service"}}) {
			t.Errorf("links %v", n.Links)
		}
		if n.Relinked != nil {
			t.Errorf("relinked %v: the create rewrote no other note", n.Relinked)
		}
		if !fileExists(vault, file) {
			t.Fatalf("no file %s in the vault: %v", file, listFiles(t, vault))
		}
		if disk := readFile(t, vault, file); !strings.Contains(disk, "Discussed [[Search Service]] timeline.") {
			t.Errorf("file content %q", disk)
		}
		if got := getNode(t, c, map[string]any{"id": id}); got == nil || got.Title != n.Title {
			t.Errorf("get_node after create: %+v", got)
		}
	})
	t.Run("NODE_EXISTS on repeat", func(t *testing.T) {
		before := readFile(t, vault, file)
		wantCode(t, c, nodeExists, "create_node", args)
		if after := readFile(t, vault, file); after != before {
			t.Errorf("the refused create rewrote the file: %q", after)
		}
	})
	t.Run("taking over a bare link lists the note it relinked", func(t *testing.T) {
		// meetings/Search Service.md would be the note [[Search Service]]
		// finds: beside the meeting notes, and from every other folder too
		// (as short a path as projects/Search Service.md, and first in
		// byte order). The create writes those links longer, and says so.
		var n node
		callTool(t, c, "create_node", map[string]any{"title": "Search Service", "content": "a namesake", "directory": "meetings"}).decode(t, &n)
		if n.ID != "meetings/search service.md" || !slices.Contains(n.Relinked, relinked{ID: id, Links: 1}) || !slices.Contains(n.Relinked, relinked{ID: "home.md", Links: 2}) {
			t.Errorf("created %+v, relinked %v", n, n.Relinked)
		}
		if disk := readFile(t, vault, file); !strings.Contains(disk, "Discussed [[projects/Search Service]] timeline.") {
			t.Errorf("the meeting notes after the create: %q", disk)
		}
		for _, r := range n.Relinked {
			if got := getNode(t, c, map[string]any{"id": r.ID}); got == nil || !slices.Contains(ids(got.Links), "projects/search service.md") || slices.Contains(ids(got.Links), n.ID) {
				t.Errorf("%s's link changed its target: %+v", r.ID, got)
			}
		}
		wantText(t, c, `{"deleted":true}`, "delete_node", map[string]any{"id": n.ID})
	})
	t.Run("directory escape is refused", func(t *testing.T) {
		before := listFiles(t, vault)
		outside := listFiles(t, vault+"/..")
		wantCode(t, c, invalidParams, "create_node", map[string]any{"title": "Escape", "content": "x", "directory": "../x"})
		if after := listFiles(t, vault); !slices.Equal(after, before) {
			t.Errorf("vault files changed: %v", after)
		}
		if after := listFiles(t, vault+"/.."); !slices.Equal(after, outside) {
			t.Errorf("files outside the vault changed: %v", after)
		}
	})
	t.Run("title and content are required", func(t *testing.T) {
		wantCode(t, c, invalidParams, "create_node", map[string]any{"title": "No Content"})
	})
}

func testUpdateNode(t *testing.T, c *client.Client, vault string) {
	t.Run("content", func(t *testing.T) {
		var n node
		callTool(t, c, "update_node", map[string]any{"id": "concepts/Caching.md", "content": "Rewritten: see [[BM25]]."}).decode(t, &n)
		if n.ID != "concepts/caching.md" || n.Content != "Rewritten: see [[BM25]]." {
			t.Errorf("updated %+v", n)
		}
		if disk := readFile(t, vault, "concepts/Caching.md"); !strings.Contains(disk, "Rewritten: see [[BM25]].") || strings.Contains(disk, "Query cache") {
			t.Errorf("file after update: %q", disk)
		}
		if got := getNode(t, c, map[string]any{"id": "concepts/caching.md"}); got == nil || !slices.Equal(ids(got.Links), []string{"concepts/bm25.md"}) {
			t.Errorf("get_node after update: %+v", got)
		}
	})
	t.Run("title rename rewrites incoming links", func(t *testing.T) {
		var n node
		callTool(t, c, "update_node", map[string]any{"id": "people/grace hopper.md", "title": "Grace Brewster Hopper"}).decode(t, &n)
		const newID = "people/grace brewster hopper.md"
		if n.ID != newID || n.Title != "Grace Brewster Hopper" {
			t.Errorf("renamed node %+v", n)
		}
		if n.Renamed == nil || n.Renamed.From != "people/grace hopper.md" || n.Renamed.To != newID || n.Renamed.FilesChanged != 2 {
			t.Errorf("renamed %+v, want 2 files changed", n.Renamed)
		}
		if fileExists(vault, "people/Grace Hopper.md") || !fileExists(vault, "people/Grace Brewster Hopper.md") {
			t.Errorf("files after the rename: %v", listFiles(t, vault+"/people"))
		}
		for _, rel := range []string{"Home.md", "projects/Vault Migration.md"} {
			disk := readFile(t, vault, rel)
			if strings.Contains(disk, "[[Grace Hopper]]") || !strings.Contains(disk, "[[Grace Brewster Hopper]]") {
				t.Errorf("%s still links the old title: %q", rel, disk)
			}
		}
		if got := getNode(t, c, map[string]any{"id": "people/grace hopper.md"}); got != nil {
			t.Errorf("the old id still answers: %+v", got)
		}
		home := getNode(t, c, map[string]any{"id": "home.md"})
		if home == nil || !slices.Contains(ids(home.Links), newID) || slices.Contains(ids(home.Links), "people/grace hopper.md") {
			t.Errorf("home.md links after the rename: %+v", home)
		}
	})
	t.Run("missing node is NODE_NOT_FOUND", func(t *testing.T) {
		wantCode(t, c, nodeNotFound, "update_node", map[string]any{"id": "no/such note.md", "content": "x"})
	})
	t.Run("no field to change is INVALID_PARAMS", func(t *testing.T) {
		before := readFile(t, vault, "Home.md")
		wantCode(t, c, invalidParams, "update_node", map[string]any{"id": "home.md"})
		if after := readFile(t, vault, "Home.md"); after != before {
			t.Error("the refused update changed the file")
		}
	})
}

func testDeleteNode(t *testing.T, c *client.Client, vault string) {
	const id, file = "meetings/meeting notes 2024-01-15.md", "meetings/Meeting Notes 2024-01-15.md" // made by testCreateNode
	if !fileExists(vault, file) {
		t.Fatalf("%s does not exist: create_node failed", file)
	}
	wantText(t, c, `{"deleted":true}`, "delete_node", map[string]any{"id": id})
	if fileExists(vault, file) {
		t.Error("delete_node left the file")
	}
	wantText(t, c, "null", "get_node", map[string]any{"id": id})
	wantText(t, c, `{"deleted":false}`, "delete_node", map[string]any{"id": id})
}
