package server_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/tools/graph"
)

// graphCase is one tool call of the toolset walk and what must come back:
// an error code, an exact text, or a check of the text.
type graphCase struct {
	name  string
	tool  string
	args  map[string]any
	code  string            // expected error code; "" for success
	want  string            // expected exact text, when set
	check func(string) bool // extra check of a successful text
}

func errCode(t *testing.T, text string) string {
	t.Helper()
	var er graph.ErrorResponse
	if err := json.Unmarshal([]byte(text), &er); err != nil || er.Error.Code == "" || er.Error.Message == "" {
		t.Fatalf("error text %q is not {error:{code,message}}", text)
	}
	return er.Error.Code
}

func contentOf(t *testing.T, text string) string {
	t.Helper()
	var n graph.NodeResponse
	if err := json.Unmarshal([]byte(text), &n); err != nil {
		t.Fatalf("not a node: %s", text)
	}
	return n.Content
}

func neighborContents(t *testing.T, text string) []string {
	t.Helper()
	var ns []graph.NodeResponse
	if err := json.Unmarshal([]byte(text), &ns); err != nil {
		var ctx graph.NodeWithContextResponse
		if err := json.Unmarshal([]byte(text), &ctx); err != nil {
			t.Fatalf("not a node list or context: %s", text)
		}
		for _, n := range ctx.Neighbors {
			ns = append(ns, n.NodeResponse)
		}
	}
	var out []string
	for _, n := range ns {
		out = append(out, n.Content)
	}
	return out
}

func arrayLen(t *testing.T, text string) int {
	t.Helper()
	var a []json.RawMessage
	if err := json.Unmarshal([]byte(text), &a); err != nil {
		t.Fatalf("not an array: %s", text)
	}
	return len(a)
}

const (
	invalid  = graph.CodeInvalidParams
	exists   = graph.CodeNodeExists
	notFound = graph.CodeNodeNotFound
)

// walkGraphTools calls every graph tool through c: each not-an-error case,
// each error code a client can cause, the truncation boundaries, the limits
// (0, max, max+1) and arguments of the wrong JSON type.
func walkGraphTools(t *testing.T, c *client.Client, f *fixture) {
	t.Helper()
	suffix := core.TruncationSuffix
	cases := []graphCase{
		// Not errors.
		{name: "get_node missing is null", tool: "get_node", args: map[string]any{"id": "notes/missing.md"}, want: "null"},
		{name: "delete_node missing", tool: "delete_node", args: map[string]any{"id": "notes/missing.md"}, want: `{"deleted":false}`},
		{name: "find_path without a path is null", tool: "find_path", args: map[string]any{"source": "notes/node.md", "target": "notes/index.md"}, want: "null"},
		{name: "search without results is []", tool: "search", args: map[string]any{"query": "zzz"}, want: "[]"},
		{name: "get_neighbors without neighbours is []", tool: "get_neighbors", args: map[string]any{"id": "notes/node.md", "direction": "out"}, want: "[]"},
		{name: "search_by_tags without match is []", tool: "search_by_tags", args: map[string]any{"tags": []string{"nothing"}}, want: "[]"},
		{name: "random_node without match is null", tool: "random_node", args: map[string]any{"tags": []string{"nothing"}}, want: "null"},

		// Shapes and behaviour.
		{name: "get_node", tool: "get_node", args: map[string]any{"id": "Notes/GraphCore.md"},
			check: func(s string) bool {
				return strings.HasPrefix(s, `{"id":"notes/graphcore.md","title":"GraphCore","content":"`) &&
					strings.HasSuffix(s, `"tags":["architecture","core"],"links":[{"id":"notes/storeprovider.md","title":"StoreProvider"}]}`)
			}},
		{name: "get_node depth 1", tool: "get_node", args: map[string]any{"id": "notes/graphcore.md", "depth": 1},
			check: func(s string) bool {
				return strings.Contains(s, `"incomingCount":1,"outgoingCount":1,"neighbors":[`) &&
					strings.Contains(s, `"direction":"out"`) && strings.Contains(s, `"direction":"in"`)
			}},
		{name: "find_path", tool: "find_path", args: map[string]any{"source": "notes/index.md", "target": "notes/node.md"},
			want: `{"path":["notes/index.md","notes/graphcore.md","notes/storeprovider.md","notes/node.md"],"length":3}`},
		{name: "get_hubs in_degree", tool: "get_hubs", args: map[string]any{"limit": 1}, check: func(s string) bool { return strings.HasPrefix(s, `[{"id":`) && strings.Contains(s, `"score":1}`) }},
		{name: "get_hubs pagerank", tool: "get_hubs", args: map[string]any{"metric": "pagerank", "limit": 3}, check: func(s string) bool { return arrayLen(t, s) == 3 }},
		{name: "search_by_tags all", tool: "search_by_tags", args: map[string]any{"tags": []string{"core", "architecture"}, "mode": "all"},
			check: func(s string) bool { return arrayLen(t, s) == 1 && strings.Contains(s, "notes/graphcore.md") }},
		{name: "search", tool: "search", args: map[string]any{"query": "notes/"}, check: func(s string) bool { return strings.Contains(s, `"score":`) }},
		{name: "random_node", tool: "random_node", args: map[string]any{"tags": []string{"provider"}}, check: func(s string) bool { return strings.Contains(s, `"id":"notes/storeprovider.md"`) }},

		// Truncation boundaries: the limit itself is kept, one more is cut.
		{name: "primary content of exactly 10000", tool: "get_node", args: map[string]any{"id": "big/exact-primary.md"}, check: func(s string) bool { return contentOf(t, s) == exactPrimary }},
		{name: "primary content of 10001", tool: "get_node", args: map[string]any{"id": "big/over-primary.md"}, check: func(s string) bool { return contentOf(t, s) == exactPrimary+suffix }},
		{name: "list content of 500 and 501", tool: "get_neighbors", args: map[string]any{"id": "big/list.md", "direction": "out"},
			check: func(s string) bool {
				return slices.Equal(neighborContents(t, s), []string{exactList, exactList + suffix})
			}},
		{name: "neighbour content of 200 and 201", tool: "get_node", args: map[string]any{"id": "big/ctx.md", "depth": 1},
			check: func(s string) bool {
				return slices.Equal(neighborContents(t, s), []string{exactNeighbor, exactNeighbor + suffix})
			}},

		// Limits: 0 and max+1 refused, max accepted.
		{name: "search limit 0", tool: "search", args: map[string]any{"query": "q", "limit": 0}, code: invalid},
		{name: "search limit 50", tool: "search", args: map[string]any{"query": "q", "limit": 50}, want: "[]"},
		{name: "search limit 51", tool: "search", args: map[string]any{"query": "q", "limit": 51}, code: invalid},
		{name: "get_neighbors limit 0", tool: "get_neighbors", args: map[string]any{"id": "notes/node.md", "limit": 0}, code: invalid},
		{name: "get_neighbors limit 50", tool: "get_neighbors", args: map[string]any{"id": "notes/node.md", "limit": 50}, check: func(s string) bool { return arrayLen(t, s) == 1 }},
		{name: "get_neighbors limit 51", tool: "get_neighbors", args: map[string]any{"id": "notes/node.md", "limit": 51}, code: invalid},
		{name: "get_hubs limit 0", tool: "get_hubs", args: map[string]any{"limit": 0}, code: invalid},
		{name: "get_hubs limit 50", tool: "get_hubs", args: map[string]any{"limit": 50}, check: func(s string) bool { return arrayLen(t, s) == len(seedFiles) }},
		{name: "get_hubs limit 51", tool: "get_hubs", args: map[string]any{"limit": 51}, code: invalid},
		{name: "search_by_tags limit 0", tool: "search_by_tags", args: map[string]any{"tags": []string{"core"}, "limit": 0}, code: invalid},
		{name: "search_by_tags limit 100", tool: "search_by_tags", args: map[string]any{"tags": []string{"core"}, "limit": 100}, check: func(s string) bool { return arrayLen(t, s) == 2 }},
		{name: "search_by_tags limit 101", tool: "search_by_tags", args: map[string]any{"tags": []string{"core"}, "limit": 101}, code: invalid},
		{name: "get_node depth -1", tool: "get_node", args: map[string]any{"id": "notes/node.md", "depth": -1}, code: invalid},
		{name: "get_node depth 2", tool: "get_node", args: map[string]any{"id": "notes/node.md", "depth": 2}, code: invalid},

		// Wrong JSON types, missing and unknown values.
		{name: "id as a number", tool: "get_node", args: map[string]any{"id": 5}, code: invalid},
		{name: "limit as a string", tool: "get_hubs", args: map[string]any{"limit": "10"}, code: invalid},
		{name: "limit with a fraction", tool: "get_hubs", args: map[string]any{"limit": 1.5}, code: invalid},
		{name: "tags as a string", tool: "search_by_tags", args: map[string]any{"tags": "core"}, code: invalid},
		{name: "tags of numbers", tool: "update_node", args: map[string]any{"id": "notes/node.md", "tags": []int{1}}, code: invalid},
		{name: "depth as a boolean", tool: "get_node", args: map[string]any{"id": "notes/node.md", "depth": true}, code: invalid},
		{name: "missing id", tool: "delete_node", args: map[string]any{}, code: invalid},
		{name: "missing target", tool: "find_path", args: map[string]any{"source": "a.md"}, code: invalid},
		{name: "unknown direction", tool: "get_neighbors", args: map[string]any{"id": "notes/node.md", "direction": "up"}, code: invalid},
		{name: "unknown metric", tool: "get_hubs", args: map[string]any{"metric": "betweenness"}, code: invalid},
		{name: "empty tag list", tool: "search_by_tags", args: map[string]any{"tags": []string{}}, code: invalid},

		// Writes.
		{name: "create_node", tool: "create_node", args: map[string]any{"title": "Fresh Idea", "content": "hello [[Node]]", "tags": []string{"new"}, "directory": "inbox"},
			check: func(s string) bool {
				return strings.HasPrefix(s, `{"id":"inbox/fresh idea.md","title":"Fresh Idea","content":"hello [[Node]]`) &&
					strings.HasSuffix(s, `"tags":["new"],"links":[{"id":"notes/node.md","title":"Node"}]}`)
			}},
		{name: "create_node again is NODE_EXISTS", tool: "create_node", args: map[string]any{"title": "fresh idea", "content": "other", "directory": "inbox"}, code: exists},
		{name: "create_node escaping the vault", tool: "create_node", args: map[string]any{"title": "x", "content": "", "directory": "../outside"}, code: invalid},
		{name: "update_node without fields", tool: "update_node", args: map[string]any{"id": "inbox/fresh idea.md"}, code: invalid},
		{name: "update_node missing is NODE_NOT_FOUND", tool: "update_node", args: map[string]any{"id": "notes/missing.md", "content": "x"}, code: notFound},
		{name: "update_node content", tool: "update_node", args: map[string]any{"id": "INBOX/Fresh Idea.md", "content": "changed"}, check: func(s string) bool { return strings.HasPrefix(contentOf(t, s), "changed") }},
		{name: "update_node renaming rewrites incoming links", tool: "update_node", args: map[string]any{"id": "notes/graphcore.md", "title": "Core Hub"},
			check: func(s string) bool {
				var r graph.UpdateResponse
				return json.Unmarshal([]byte(s), &r) == nil && r.ID == "notes/core hub.md" && r.Title == "Core Hub" && r.Renamed != nil &&
					r.Renamed.From == "notes/graphcore.md" && r.Renamed.To == "notes/core hub.md" && r.Renamed.FilesChanged == 1 && r.Renamed.LinksChanged == 1
			}},
		{name: "the renamed node keeps its incoming link", tool: "get_neighbors", args: map[string]any{"id": "notes/core hub.md", "direction": "in"},
			check: func(s string) bool { return strings.Contains(s, `"id":"notes/index.md"`) }},
		{name: "delete_node", tool: "delete_node", args: map[string]any{"id": "inbox/fresh idea.md"}, want: `{"deleted":true}`},
		{name: "delete_node again", tool: "delete_node", args: map[string]any{"id": "inbox/fresh idea.md"}, want: `{"deleted":false}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, text := callTool(t, c, tc.tool, tc.args)
			if tc.code != "" {
				if !res.IsError || errCode(t, text) != tc.code {
					t.Fatalf("want %s, got isError=%v %s", tc.code, res.IsError, text)
				}
				return
			}
			if res.IsError {
				t.Fatalf("unexpected error: %s", text)
			}
			if tc.want != "" && text != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", text, tc.want)
			}
			if tc.check != nil && !tc.check(text) {
				t.Fatalf("unexpected answer: %.400s", text)
			}
		})
	}

	t.Run("a refused create writes no file", func(t *testing.T) {
		if _, err := os.Stat(filepath.Join(f.vault, "..", "outside")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("a directory was made outside the vault: %v", err)
		}
		if slices.Contains(f.vaultFiles(t), "inbox/Fresh Idea.md") {
			t.Fatal("the deleted note's file is still there")
		}
		index, err := os.ReadFile(filepath.Join(f.vault, "notes", "Index.md"))
		if err != nil || !strings.Contains(string(index), "[[Core Hub]]") {
			t.Fatalf("incoming link not rewritten in the file: %q, %v", index, err)
		}
	})

	t.Run("object answers carry structuredContent, arrays and null do not", func(t *testing.T) {
		res, _ := callTool(t, c, "get_node", map[string]any{"id": "notes/node.md"})
		if res.StructuredContent == nil {
			t.Fatal("object answer without structuredContent")
		}
		for _, call := range []struct {
			tool string
			args map[string]any
		}{{"get_hubs", map[string]any{}}, {"get_node", map[string]any{"id": "x.md"}}} {
			if res, _ := callTool(t, c, call.tool, call.args); res.StructuredContent != nil {
				t.Fatalf("%s: structuredContent on a non-object answer", call.tool)
			}
		}
	})

	t.Run("a write's answer carries the problems of what it wrote, and only it", func(t *testing.T) {
		_, text := callTool(t, c, "create_node", map[string]any{"title": "Warned", "content": "see [[missing-note]]"})
		if !strings.HasSuffix(text, `,"_warnings":["Broken link: [[missing-note]]"]}`) {
			t.Fatalf("no _warnings: %s", text)
		}
		if _, text := callTool(t, c, "get_node", map[string]any{"id": "warned.md"}); strings.Contains(text, "_warnings") {
			t.Fatalf("a read carries warnings: %s", text)
		}
	})
}
