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
	// The original server's parameters: memory_id (source_id when no
	// target is given), relation (relation_type), direction, edge_id.
	MemoryID  string     `json:"memory_id"`
	Relation  string     `json:"relation"`
	Direction string     `json:"direction"`
	EdgeID    *tools.Int `json:"edge_id"`
}

// MemoryEdgeForgetSpec is memory_edge_forget's contract (spec 004 names
// it; the shape is vaultgraph's, see docs/MEMORY.md).
func MemoryEdgeForgetSpec() mcp.Tool {
	return mcp.NewTool(MemoryEdgeForgetName,
		mcp.WithDescription("Delete relationships between memories; the memories stay. With target_id, the relationships source_id -> target_id "+
			"(of relation_type, or of every type); without, every relationship of source_id (or memory_id) in direction: outgoing, incoming or both "+
			"(the default), of relation_type or all. Deleting nothing is not an error: deleted_count is 0. "+
			"Relationships have no numeric ID here: edge_id is refused; name them by their memories and type."),
		mcp.WithString("source_id", mcp.Description("ID of the memory the relationship starts from (required, or as memory_id)")),
		mcp.WithString("target_id", mcp.Description("ID of the memory the relationship points to; omit for every relationship of source_id")),
		mcp.WithString("relation_type", mcp.Enum(mem.RelationTypes...), mcp.Description("Only relationships of this type; omit for every type")),
		mcp.WithString("memory_id", mcp.Description("Same as source_id without target_id: every relationship of this memory in direction")),
		mcp.WithString("relation", mcp.Enum(mem.RelationTypes...), mcp.Description("Same as relation_type (the name the original server used)")),
		mcp.WithString("direction", mcp.Enum(mem.Directions...), mcp.DefaultString(mem.DirectionBoth),
			mcp.Description("Without target_id: outgoing (from the memory), incoming (to it) or both")),
		mcp.WithInteger("edge_id", mcp.Description("Not supported: relationships are named by source_id, target_id and relation_type")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.Annotations("Forget memory relationships", false, true, true),
	)
}
