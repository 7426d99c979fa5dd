package memory

import (
	"context"

	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/server"
	mem "github.com/vaultgraph/vaultgraph/memory"
)

// MemoryStoreResponse is memory_store's data.
type MemoryStoreResponse struct {
	ID          string  `json:"id"`
	ContentHash string  `json:"content_hash"`
	Namespace   string  `json:"namespace"`
	MemoryType  string  `json:"memory_type"`
	Duplicate   bool    `json:"duplicate"`
	Confidence  float64 `json:"confidence"`
}

// MemoryStoreHandler answers memory_store.
func MemoryStoreHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling().WithPrecheck(checkStoreType), MemoryStoreSpec(), func(ctx context.Context, in MemoryStoreInput) (any, error) {
		m, created, err := d.Memories.Store(ctx, mem.StoreInput{
			Content: in.Content, Type: tools.Or(in.MemoryType, mem.TypeSession), Namespace: tools.Or(in.Namespace, mem.NamespaceGlobal),
			Importance: tools.Or(in.Importance, 0.5), Metadata: in.Metadata,
		})
		if err != nil {
			return nil, err
		}
		return MemoryStoreResponse{ID: m.ID, ContentHash: m.ContentHash, Namespace: m.Namespace, MemoryType: m.Type,
			Duplicate: !created, Confidence: mem.ToFloat(m.Confidence)}, nil
	})
}

// checkStoreType answers an unknown memory_type with the spec's message.
func checkStoreType(args map[string]any) error {
	if t, ok := args["memory_type"].(string); ok {
		return mem.CheckType(t, false)
	}
	return nil
}
