package memory

import (
	"cmp"
	"context"

	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/core"
)

// MemoryListResponse is memory_list's data.
type MemoryListResponse struct {
	Memories []MemoryView `json:"memories"`
	Total    int          `json:"total"`
	Count    int          `json:"count"`
	Limit    int          `json:"limit"`
	Offset   int          `json:"offset"`
	HasMore  bool         `json:"has_more"`
	Filters  FiltersView  `json:"filters"`
}

// MemoryListHandler answers memory_list.
func MemoryListHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), MemoryListSpec(), func(ctx context.Context, in MemoryListInput) (any, error) {
		limit, offset := tools.IntOr(in.Limit, DefaultListLimit), tools.IntOr(in.Offset, 0)
		order := ""
		if in.Descending != nil {
			order = map[bool]string{true: "desc", false: "asc"}[*in.Descending]
		}
		order, err := oneOf("order", tools.Or(in.Order, ""), "descending", order)
		if err != nil {
			return nil, err
		}
		page := core.MemoryPage{Order: core.MemoryOrder(tools.Or(in.OrderBy, string(core.OrderCreatedAt))),
			Descending: cmp.Or(order, "desc") == "desc", Offset: offset, Limit: limit}
		ms, total, err := d.Memories.List(ctx, filter(in.FiltersView), page)
		if err != nil {
			return nil, err
		}
		return MemoryListResponse{Memories: views(ms), Total: total, Count: len(ms), Limit: limit, Offset: offset,
			HasMore: offset+len(ms) < total, Filters: in.FiltersView}, nil
	})
}
