package memory

import (
	"context"
	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/server"
)

// MemoryRecallResponse is memory_recall's data.
type MemoryRecallResponse struct {
	Memories []MemoryView `json:"memories"`
	Total    int          `json:"total"`
	Query    string       `json:"query"`
	Filters  FiltersView  `json:"filters"`
}

// MemoryRecallHandler answers memory_recall.
func MemoryRecallHandler(d Deps) server.ToolHandlerFunc {
	return handle(d, MemoryRecallSpec(), func(ctx context.Context, in MemoryRecallInput) (any, error) {
		hits, err := d.Memories.Recall(ctx, in.Query, tools.IntOr(in.NResults, 5), filter(in.FiltersView))
		if err != nil {
			return nil, err
		}
		out := MemoryRecallResponse{Memories: make([]MemoryView, len(hits)), Total: len(hits), Query: in.Query, Filters: in.FiltersView}
		for i, h := range hits {
			v := view(h.Memory)
			score := round4(h.Score)
			v.Score = &score
			out.Memories[i] = v
		}
		return out, nil
	})
}
