package tools

import (
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func fakeTool(toolset, name string, readOnly bool) Tool {
	return Tool{Toolset: toolset, Tool: mcp.NewTool(name, mcp.WithReadOnlyHintAnnotation(readOnly))}
}

func names(ts []Tool) string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Toolset+"/"+t.Tool.Name)
	}
	return strings.Join(out, ",")
}

func TestSelect(t *testing.T) {
	all := []Tool{
		fakeTool(ToolsetGraph, "search", true),
		fakeTool(ToolsetGraph, "create_node", false),
		fakeTool(ToolsetKB, "list_notes", true),
		fakeTool(ToolsetMemory, "search", true),
		fakeTool(ToolsetMemory, "memory_store", false),
	}
	cases := []struct {
		name string
		sel  Selection
		want string
	}{
		{"no toolsets named enables the defaults (graph, kb, edit)", Selection{}, "graph/search,graph/create_node,kb/list_notes"},
		{"read-only keeps tools whose hint is true", Selection{Toolsets: []string{ToolsetGraph, ToolsetKB}, ReadOnly: true}, "graph/search,kb/list_notes"},
		{"a clash renames memory's search by default", Selection{Toolsets: []string{ToolsetMemory, ToolsetGraph}}, "graph/search,graph/create_node,memory/memory_search,memory/memory_store"},
		{"without a clash nothing is renamed", Selection{Toolsets: []string{ToolsetMemory}}, "memory/search,memory/memory_store"},
		{"a configured rename wins over the default", Selection{Toolsets: []string{ToolsetGraph, ToolsetMemory}, Renames: map[string]string{"memory/search": "recall"}}, "graph/search,graph/create_node,memory/recall,memory/memory_store"},
		{"a bare-name rename applies to the later toolset", Selection{Toolsets: []string{ToolsetGraph, ToolsetMemory}, Renames: map[string]string{"memory/search": "", "search": "mem_search"}}, "graph/search,graph/create_node,memory/mem_search,memory/memory_store"},
		// Issue 26: single tools beside toolsets.
		{"a single tool of another toolset", Selection{Tools: []string{"memory_store"}}, "graph/search,graph/create_node,kb/list_notes,memory/memory_store"},
		{"a single tool named with its toolset", Selection{Toolsets: []string{ToolsetKB}, Tools: []string{"memory/memory_store"}}, "kb/list_notes,memory/memory_store"},
		{"an excluded tool", Selection{ExcludeTools: []string{"create_node"}}, "graph/search,kb/list_notes"},
		{"an exclusion by the published name", Selection{Toolsets: []string{ToolsetGraph, ToolsetMemory}, ExcludeTools: []string{"memory_search"}}, "graph/search,graph/create_node,memory/memory_store"},
		{"an exclusion by toolset/tool", Selection{Toolsets: []string{ToolsetGraph, ToolsetMemory}, ExcludeTools: []string{"memory/search"}}, "graph/search,graph/create_node,memory/memory_store"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Select(all, c.sel)
			if err != nil {
				t.Fatal(err)
			}
			if names(got) != c.want {
				t.Fatalf("got %s\nwant %s", names(got), c.want)
			}
		})
	}
}

func TestSelectRefusesUnknownToolsetsAndUnresolvedClashes(t *testing.T) {
	all := []Tool{fakeTool(ToolsetGraph, "search", true), fakeTool(ToolsetKB, "search", true)}
	if _, err := Select(all, Selection{Toolsets: []string{"graphs"}}); err == nil || !strings.Contains(err.Error(), `unknown toolset "graphs"`) {
		t.Fatalf("unknown toolset: err = %v", err)
	}
	_, err := Select(all, Selection{Toolsets: []string{ToolsetGraph, ToolsetKB}})
	if err == nil || !strings.Contains(err.Error(), `"kb/search"`) {
		t.Fatalf("unresolved clash must name the rename key to set, err = %v", err)
	}
	if _, err := Select(all, Selection{Toolsets: []string{ToolsetGraph, ToolsetKB}, Renames: map[string]string{"kb/search": "kb_search"}}); err != nil {
		t.Fatalf("resolved clash: %v", err)
	}
}

func TestSelectRefusesUnknownAndWritingSingleTools(t *testing.T) {
	all := []Tool{fakeTool(ToolsetGraph, "get_node", true), fakeTool(ToolsetGraph, "create_node", false)}
	for _, sel := range []Selection{{Tools: []string{"get_nod"}}, {ExcludeTools: []string{"kb/get_node"}}} {
		if _, err := Select(all, sel); err == nil || !strings.Contains(err.Error(), "unknown tool") || !strings.Contains(err.Error(), "known: create_node, get_node") {
			t.Errorf("%+v: err = %v", sel, err)
		}
	}
	if _, err := Select(all, Selection{Toolsets: []string{ToolsetKB}, ReadOnly: true, Tools: []string{"create_node"}}); err == nil || !strings.Contains(err.Error(), "read_only") {
		t.Errorf("a writing single tool with read_only: err = %v", err)
	}
}

func TestSelectDoesNotChangeTheInventory(t *testing.T) {
	all := []Tool{fakeTool(ToolsetGraph, "search", true), fakeTool(ToolsetMemory, "search", true)}
	if _, err := Select(all, Selection{Toolsets: []string{ToolsetGraph, ToolsetMemory}}); err != nil {
		t.Fatal(err)
	}
	if all[1].Tool.Name != "search" {
		t.Fatalf("Select renamed the caller's tool: %s", all[1].Tool.Name)
	}
}

func TestReadOnlyComesFromTheAnnotation(t *testing.T) {
	unset := Tool{Tool: mcp.Tool{Name: "x"}}
	if unset.ReadOnly() {
		t.Fatal("an unset ReadOnlyHint must count as writing")
	}
	if !fakeTool(ToolsetGraph, "x", true).ReadOnly() || fakeTool(ToolsetGraph, "x", false).ReadOnly() {
		t.Fatal("ReadOnly must follow the hint")
	}
}

// A toolset whose tools are built only when they can be served is wanted
// when it is enabled, or when one of its tools is named alone.
func TestWantsATurnedOffToolsetForAToolNamedAlone(t *testing.T) {
	specs := []mcp.Tool{mcp.NewTool("memory_store"), mcp.NewTool("memory_count"), mcp.NewTool("search")}
	cases := []struct {
		name string
		sel  Selection
		want bool
	}{
		{"enabled", Selection{Toolsets: []string{ToolsetGraph, ToolsetMemory}}, true},
		{"off by default", Selection{}, false},
		{"off", Selection{Toolsets: []string{ToolsetGraph}}, false},
		{"a tool named alone", Selection{Toolsets: []string{ToolsetGraph}, Tools: []string{"memory_store"}}, true},
		{"a tool named with its toolset", Selection{Toolsets: []string{ToolsetGraph}, Tools: []string{"memory/memory_count"}}, true},
		{"search, the graph toolset's too", Selection{Toolsets: []string{ToolsetKB}, Tools: []string{"search"}}, false},
		{"memory/search", Selection{Toolsets: []string{ToolsetKB}, Tools: []string{"memory/search"}}, true},
		{"another toolset's tool", Selection{Toolsets: []string{ToolsetGraph}, Tools: []string{"list_notes", "kb/memory_store"}}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.sel.Wants(ToolsetMemory, specs); got != c.want {
				t.Errorf("Wants = %v, want %v", got, c.want)
			}
		})
	}
	// What Wants lets a caller build, Select then serves.
	sel := Selection{Toolsets: []string{ToolsetGraph}, Tools: []string{"memory_store"}}
	all := []Tool{fakeTool(ToolsetGraph, "search", true), fakeTool(ToolsetMemory, "memory_store", false)}
	picked, err := Select(all, sel)
	if err != nil || names(picked) != "graph/search,memory/memory_store" {
		t.Fatalf("Select = %s, %v", names(picked), err)
	}
}
