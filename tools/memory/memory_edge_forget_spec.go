package memory

import (
	"github.com/mark3labs/mcp-go/mcp"
	mem "github.com/vaultgraph/vaultgraph/memory"
	"github.com/vaultgraph/vaultgraph/tools"
)

// MemoryEdgeForgetName is memory_edge_forget's name.
const MemoryEdgeForgetName = "memory_edge_forget"

// MemoryEdgeForgetInput is memory_edge_forget's arguments.
type MemoryEdgeForgetInput struct {
	SourceID     string `json:"source_id"`
	TargetID     string `json:"target_id"`
	RelationType string `json:"relation_type"`
}

// MemoryEdgeForgetSpec is memory_edge_forget's contract (spec 004 names
// it; the shape is vaultgraph's, see docs/MEMORY.md).
func MemoryEdgeForgetSpec() mcp.Tool {
	return mcp.NewTool(MemoryEdgeForgetName,
		mcp.WithDescription("Delete relationships between memories; the memories stay. With target_id, the relationships source_id -> target_id "+
			"(of relation_type, or of every type); without, every relationship touching source_id in either direction (of relation_type, or all). "+
			"Deleting nothing is not an error: deleted_count is 0."),
		mcp.WithString("source_id", mcp.Required(), mcp.Description("ID of the memory the relationship starts from")),
		mcp.WithString("target_id", mcp.Description("ID of the memory the relationship points to; omit for every relationship of source_id")),
		mcp.WithString("relation_type", mcp.Enum(mem.RelationTypes...), mcp.Description("Only relationships of this type; omit for every type")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.Annotations("Forget memory relationships", false, true, true),
	)
}
