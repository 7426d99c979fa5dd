package memory

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/tools"
)

// MemoryCountResponse is memory_count's data.
type MemoryCountResponse struct {
	Count   int         `json:"count"`
	Filters FiltersView `json:"filters"`
}

// MemoryCountHandler answers memory_count.
func MemoryCountHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), MemoryCountSpec(), func(ctx context.Context, in MemoryCountInput) (any, error) {
		n, err := d.Memories.Count(ctx, filter(in.FiltersView))
		if err != nil {
			return nil, err
		}
		return MemoryCountResponse{Count: n, Filters: in.FiltersView}, nil
	})
}
