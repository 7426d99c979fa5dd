package memory

import (
	"context"
	"math"

	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/server"
	mem "github.com/vaultgraph/vaultgraph/memory"
)

// MemoryForgetResponse is memory_forget's data; mode says how the input
// was read ("id" or "query"). A dry run deletes nothing: deleted_ids is
// empty and would_delete_ids lists what the same call without dry_run
// would delete. matches (query mode) are the memories that matched, with
// their relevance, best first.
type MemoryForgetResponse struct {
	DeletedIDs     []string       `json:"deleted_ids"`
	DeletedCount   int            `json:"deleted_count"`
	ProtectedIDs   []string       `json:"protected_ids"`
	Mode           string         `json:"mode"`
	DryRun         bool           `json:"dry_run"`
	WouldDeleteIDs *[]string      `json:"would_delete_ids,omitempty"` // dry runs only
	Matches        *[]ForgetMatch `json:"matches,omitempty"`          // query mode only
}

// ForgetMatch is a memory query mode matched.
type ForgetMatch struct {
	ID         string  `json:"id"`
	Content    string  `json:"content"`
	MemoryType string  `json:"memory_type"`
	Namespace  string  `json:"namespace"`
	Score      float64 `json:"score"`
}

// MemoryForgetHandler answers memory_forget.
func MemoryForgetHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), MemoryForgetSpec(), func(ctx context.Context, in MemoryForgetInput) (any, error) {
		res, err := d.Memories.Forget(ctx, mem.ForgetInput{MemoryID: in.MemoryID, Query: in.Query, InputValue: in.InputValue,
			Namespace: in.Namespace, NResults: tools.IntOr(in.NResults, 5), Force: in.Force, DryRun: in.DryRun})
		if err != nil {
			return nil, err
		}
		out := MemoryForgetResponse{DeletedIDs: res.Deleted, DeletedCount: len(res.Deleted), ProtectedIDs: res.Protected,
			Mode: res.Mode, DryRun: in.DryRun}
		if in.DryRun {
			would := append([]string{}, res.WouldDelete...)
			out.WouldDeleteIDs = &would
		}
		if res.Matches != nil {
			matches := make([]ForgetMatch, len(res.Matches))
			for i, m := range res.Matches {
				matches[i] = ForgetMatch{ID: m.Memory.ID, Content: m.Memory.Content,
					MemoryType: m.Memory.Type, Namespace: m.Memory.Namespace, Score: round4(m.Score)}
			}
			out.Matches = &matches
		}
		return out, nil
	})
}

func round4(f float64) float64 { return math.Round(f*10000) / 10000 }
