package memory

import (
	"context"
	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/server"
	mem "github.com/vaultgraph/vaultgraph/memory"
)

// MemoryForgetResponse is memory_forget's data; mode says how the input
// was read ("id" or "query").
type MemoryForgetResponse struct {
	DeletedIDs   []string `json:"deleted_ids"`
	DeletedCount int      `json:"deleted_count"`
	ProtectedIDs []string `json:"protected_ids"`
	Mode         string   `json:"mode"`
}

// MemoryForgetHandler answers memory_forget.
func MemoryForgetHandler(d Deps) server.ToolHandlerFunc {
	return handle(d, MemoryForgetSpec(), func(ctx context.Context, in MemoryForgetInput) (any, error) {
		res, err := d.Memories.Forget(ctx, mem.ForgetInput{MemoryID: in.MemoryID, Query: in.Query, InputValue: in.InputValue,
			Namespace: in.Namespace, NResults: tools.IntOr(in.NResults, 5), Force: in.Force})
		if err != nil {
			return nil, err
		}
		return MemoryForgetResponse{DeletedIDs: res.Deleted, DeletedCount: len(res.Deleted), ProtectedIDs: res.Protected, Mode: res.Mode}, nil
	})
}
