package memory

import (
	"github.com/mark3labs/mcp-go/mcp"
	mem "github.com/vaultgraph/vaultgraph/memory"
	"github.com/vaultgraph/vaultgraph/tools"
)

// MemoryRelateName is memory_relate's name.
const MemoryRelateName = "memory_relate"

// MemoryRelateInput is memory_relate's arguments.
type MemoryRelateInput struct {
	SourceID     string   `json:"source_id"`
	TargetID     string   `json:"target_id"`
	RelationType string   `json:"relation_type"`
	Relation     string   `json:"relation"` // the original server's name of relation_type
	Weight       *float64 `json:"weight"`
}

// MemoryRelateSpec is memory_relate's contract (spec 004 names it; the
// shape is vaultgraph's, see docs/MEMORY.md).
func MemoryRelateSpec() mcp.Tool {
	return mcp.NewTool(MemoryRelateName,
		mcp.WithDescription("Create a directed relationship source_id -> target_id between two memories: relates_to, supersedes (source replaces target), "+
			"caused_by (source was caused by target) or contradicts. Relating the same pair with the same type again replaces the weight (created: false). "+
			"memory_inspect_graph walks these relationships."),
		mcp.WithString("source_id", mcp.Required(), mcp.Description("ID of the memory the relationship starts from")),
		mcp.WithString("target_id", mcp.Required(), mcp.Description("ID of the memory the relationship points to")),
		mcp.WithString("relation_type", mcp.Enum(mem.RelationTypes...), mcp.Description("Type of relationship (required, or as relation)")),
		mcp.WithString("relation", mcp.Enum(mem.RelationTypes...), mcp.Description("Same as relation_type (the name the original server used)")),
		mcp.WithNumber("weight", mcp.DefaultNumber(1.0), mcp.Min(0.0), mcp.Max(1.0), mcp.Description("Strength of the relationship, 0.0-1.0")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.Annotations("Relate two memories", false, false, true),
	)
}
