package memory

import (
	"github.com/mark3labs/mcp-go/mcp"
	mem "github.com/vaultgraph/vaultgraph/memory"
	"github.com/vaultgraph/vaultgraph/tools"
)

// MemoryInspectGraphName is memory_inspect_graph's name.
const MemoryInspectGraphName = "memory_inspect_graph"

// Limits and defaults of memory_inspect_graph.
const (
	DefaultGraphDepth = 2
	MaxGraphDepth     = 5
	DefaultDecay      = 0.7
)

// MemoryInspectGraphInput is memory_inspect_graph's arguments.
type MemoryInspectGraphInput struct {
	MemoryID     string     `json:"memory_id"`
	MaxDepth     *tools.Int `json:"max_depth"`
	DecayFactor  *float64   `json:"decay_factor"`
	OutputFormat *string    `json:"output_format"`
	// The original server's narrowing of the walk.
	Direction     string   `json:"direction"`
	EdgeTypes     []string `json:"edge_types"`
	IncludeScores *bool    `json:"include_scores"`
}

// MemoryInspectGraphSpec is memory_inspect_graph's contract (spec 004
// names it; the shape is vaultgraph's, see docs/MEMORY.md).
func MemoryInspectGraphSpec() mcp.Tool {
	return mcp.NewTool(MemoryInspectGraphName,
		mcp.WithDescription("Visualize the memory graph around a memory: the memories reachable over relationships (either direction) within max_depth hops. "+
			"Each node has a decayed score: the best product, over the paths reaching it, of the edge weights times decay_factor per hop (the root scores 1). "+
			"output_format json gives nodes, edges and paths (the best path to each node); mermaid gives a Mermaid flowchart."),
		mcp.WithString("memory_id", mcp.Required(), mcp.Description("ID of the memory to start from")),
		mcp.WithInteger("max_depth", mcp.DefaultNumber(DefaultGraphDepth), mcp.Min(1), mcp.Max(MaxGraphDepth), mcp.Description("Maximum number of hops")),
		mcp.WithNumber("decay_factor", mcp.DefaultNumber(DefaultDecay), mcp.Min(0.0), mcp.Max(1.0), mcp.Description("Score multiplier per hop, 0.0-1.0")),
		mcp.WithString("output_format", mcp.Enum("json", "mermaid"), mcp.DefaultString("json"), mcp.Description("json or mermaid")),
		mcp.WithString("direction", mcp.Enum(mem.Directions...), mcp.DefaultString(mem.DirectionBoth),
			mcp.Description("Follow relationships outgoing (source to target), incoming (target to source) or both")),
		mcp.WithArray("edge_types", mcp.Items(map[string]any{"type": "string", "enum": mem.RelationTypes}), mcp.UniqueItems(true),
			mcp.Description("Only follow and list relationships of these types; omit for every type")),
		mcp.WithBoolean("include_scores", mcp.DefaultBool(true), mcp.Description("false leaves out the nodes' scores and the paths")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.Annotations("Inspect the memory graph", true, false, true),
	)
}
