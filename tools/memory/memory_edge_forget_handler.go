package memory

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
	mem "github.com/vaultgraph/vaultgraph/memory"
	"github.com/vaultgraph/vaultgraph/tools"
)

// MemoryEdgeForgetResponse is memory_edge_forget's data; target_id and
// relation_type are null when not given.
type MemoryEdgeForgetResponse struct {
	DeletedCount int     `json:"deleted_count"`
	SourceID     string  `json:"source_id"`
	TargetID     *string `json:"target_id"`
	RelationType *string `json:"relation_type"`
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// MemoryEdgeForgetHandler answers memory_edge_forget.
func MemoryEdgeForgetHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), MemoryEdgeForgetSpec(), func(ctx context.Context, in MemoryEdgeForgetInput) (any, error) {
		if in.EdgeID != nil {
			return nil, &mem.Error{Msg: "edge_id is not supported: relationships have no numeric ID here; name them with source_id, target_id and relation_type (memory_inspect_graph lists them)"}
		}
		source, err := oneOf("source_id", in.SourceID, "memory_id", in.MemoryID)
		if err != nil {
			return nil, err
		}
		if source == "" {
			return nil, &mem.Error{Msg: "Provide source_id (or memory_id)"}
		}
		if in.MemoryID != "" && in.TargetID != "" {
			return nil, &mem.Error{Msg: "memory_id names every relationship of a memory: give source_id with target_id"}
		}
		relType, err := oneOf("relation_type", in.RelationType, "relation", in.Relation)
		if err != nil {
			return nil, err
		}
		n, err := d.Memories.Unrelate(ctx, source, in.TargetID, relType, in.Direction)
		if err != nil {
			return nil, err
		}
		return MemoryEdgeForgetResponse{DeletedCount: n, SourceID: source, TargetID: nullable(in.TargetID), RelationType: nullable(relType)}, nil
	})
}
