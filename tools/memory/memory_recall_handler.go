package memory

import (
	"context"
	"fmt"

	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/server"
)

// MemoryRecallResponse is memory_recall's data.
type MemoryRecallResponse struct {
	Memories []MemoryView `json:"memories"`
	Total    int          `json:"total"`
	Query    string       `json:"query"`
	Filters  FiltersView  `json:"filters"`
	// Expanded (include_related only): memories related to the recalled
	// ones, not recalled themselves, by depth then ID.
	Expanded *[]RelatedView `json:"expanded,omitempty"`
	// Note says why nothing was recalled: no memory reached the relevance
	// floor (memory.RecallFloor), so "nothing relevant" is the answer.
	Note string `json:"note,omitempty"`
}

// RelatedView is a memory reached from a recalled one.
type RelatedView struct {
	MemoryView
	RelatedTo    string `json:"related_to"`
	RelationType string `json:"relation_type"`
	Depth        int    `json:"depth"`
}

// MemoryRecallHandler answers memory_recall.
func MemoryRecallHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), MemoryRecallSpec(), func(ctx context.Context, in MemoryRecallInput) (any, error) {
		hits, err := d.Memories.Recall(ctx, in.Query, tools.IntOr(in.NResults, 5), filter(in.FiltersView))
		if err != nil {
			return nil, err
		}
		out := MemoryRecallResponse{Memories: make([]MemoryView, len(hits)), Total: len(hits), Query: in.Query, Filters: in.FiltersView}
		if len(hits) == 0 {
			out.Note = "No memory matches this query or the filters. Rephrase it, or browse with memory_list."
			if floor := d.Memories.RecallFloorOf(); floor > 0 {
				out.Note = fmt.Sprintf("No memory is relevant to this query: none reaches the relevance floor %.2f "+
					"(or none matches the filters). Rephrase it, or browse with memory_list.", floor)
			}
		}
		for i, h := range hits {
			v := view(h.Memory)
			score := round4(h.Score)
			v.Score = &score
			out.Memories[i] = v
		}
		if in.IncludeRelated {
			ids := make([]string, len(hits))
			for i, h := range hits {
				ids[i] = h.ID
			}
			rel, err := d.Memories.RelatedTo(ctx, ids, tools.IntOr(in.MaxDepth, 1))
			if err != nil {
				return nil, err
			}
			expanded := make([]RelatedView, len(rel))
			for i, r := range rel {
				expanded[i] = RelatedView{MemoryView: view(r.Memory), RelatedTo: r.RelatedTo, RelationType: r.RelationType, Depth: r.Depth}
			}
			out.Expanded = &expanded
		}
		return out, nil
	})
}
