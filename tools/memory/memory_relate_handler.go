package memory

import (
	"context"

	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/server"
	mem "github.com/vaultgraph/vaultgraph/memory"
)

// MemoryRelateResponse is memory_relate's data.
type MemoryRelateResponse struct {
	SourceID     string  `json:"source_id"`
	TargetID     string  `json:"target_id"`
	RelationType string  `json:"relation_type"`
	Weight       float64 `json:"weight"`
	Created      bool    `json:"created"`
}

// MemoryRelateHandler answers memory_relate.
func MemoryRelateHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), MemoryRelateSpec(), func(ctx context.Context, in MemoryRelateInput) (any, error) {
		w := tools.Or(in.Weight, 1)
		relType, err := oneOf("relation_type", in.RelationType, "relation", in.Relation)
		if err != nil {
			return nil, err
		}
		if relType == "" {
			return nil, &mem.Error{Msg: "Provide relation_type: relates_to, supersedes, caused_by or contradicts"}
		}
		created, err := d.Memories.Relate(ctx, in.SourceID, in.TargetID, relType, w)
		if err != nil {
			return nil, err
		}
		return MemoryRelateResponse{SourceID: in.SourceID, TargetID: in.TargetID, RelationType: relType, Weight: w, Created: created}, nil
	})
}
