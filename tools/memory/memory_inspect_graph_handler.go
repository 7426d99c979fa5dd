package memory

import (
	"context"

	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/server"
	mem "github.com/vaultgraph/vaultgraph/memory"
)

// MemoryInspectGraphResponse is memory_inspect_graph's data for
// output_format json.
type MemoryInspectGraphResponse struct {
	Root      string          `json:"root"`
	Format    string          `json:"format"`
	NodeCount int             `json:"node_count"`
	EdgeCount int             `json:"edge_count"`
	Nodes     []mem.GraphNode `json:"nodes"`
	Edges     []mem.GraphEdge `json:"edges"`
	Paths     []mem.GraphPath `json:"paths"`
}

// MemoryInspectGraphMermaid is memory_inspect_graph's data for
// output_format mermaid.
type MemoryInspectGraphMermaid struct {
	Root      string `json:"root"`
	Format    string `json:"format"`
	NodeCount int    `json:"node_count"`
	EdgeCount int    `json:"edge_count"`
	Mermaid   string `json:"mermaid"`
}

// UnscoredNode is a node of memory_inspect_graph with include_scores false.
type UnscoredNode struct {
	ID         string  `json:"id"`
	Content    string  `json:"content"`
	MemoryType string  `json:"memory_type"`
	Namespace  string  `json:"namespace"`
	Confidence float64 `json:"confidence"`
	Depth      int     `json:"depth"`
}

// MemoryInspectGraphUnscored is memory_inspect_graph's data for
// output_format json with include_scores false: no scores, no paths.
type MemoryInspectGraphUnscored struct {
	Root      string          `json:"root"`
	Format    string          `json:"format"`
	NodeCount int             `json:"node_count"`
	EdgeCount int             `json:"edge_count"`
	Nodes     []UnscoredNode  `json:"nodes"`
	Edges     []mem.GraphEdge `json:"edges"`
}

func unscored(ns []mem.GraphNode) []UnscoredNode {
	out := make([]UnscoredNode, len(ns))
	for i, n := range ns {
		out[i] = UnscoredNode{ID: n.ID, Content: n.Content, MemoryType: n.MemoryType, Namespace: n.Namespace, Confidence: n.Confidence, Depth: n.Depth}
	}
	return out
}

// MemoryInspectGraphHandler answers memory_inspect_graph.
func MemoryInspectGraphHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), MemoryInspectGraphSpec(), func(ctx context.Context, in MemoryInspectGraphInput) (any, error) {
		g, err := d.Memories.Inspect(ctx, in.MemoryID, tools.IntOr(in.MaxDepth, DefaultGraphDepth), tools.Or(in.DecayFactor, DefaultDecay),
			mem.WalkOptions{Direction: in.Direction, EdgeTypes: in.EdgeTypes})
		if err != nil {
			return nil, err
		}
		if tools.Or(in.OutputFormat, "json") == "json" && !tools.Or(in.IncludeScores, true) {
			return MemoryInspectGraphUnscored{Root: g.Root, Format: "json", NodeCount: len(g.Nodes), EdgeCount: len(g.Edges),
				Nodes: unscored(g.Nodes), Edges: g.Edges}, nil
		}
		if tools.Or(in.OutputFormat, "json") == "mermaid" {
			return MemoryInspectGraphMermaid{Root: g.Root, Format: "mermaid", NodeCount: len(g.Nodes), EdgeCount: len(g.Edges), Mermaid: mem.Mermaid(g)}, nil
		}
		return MemoryInspectGraphResponse{Root: g.Root, Format: "json", NodeCount: len(g.Nodes), EdgeCount: len(g.Edges),
			Nodes: g.Nodes, Edges: g.Edges, Paths: g.Paths}, nil
	})
}
