package memory

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
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
	return handle(d, MemoryEdgeForgetSpec(), func(ctx context.Context, in MemoryEdgeForgetInput) (any, error) {
		n, err := d.Memories.Unrelate(ctx, in.SourceID, in.TargetID, in.RelationType)
		if err != nil {
			return nil, err
		}
		return MemoryEdgeForgetResponse{DeletedCount: n, SourceID: in.SourceID, TargetID: nullable(in.TargetID), RelationType: nullable(in.RelationType)}, nil
	})
}
