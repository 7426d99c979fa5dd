package memory

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/tools"
)

// MemoryValidateHandler answers memory_validate with memory_id,
// old_confidence, new_confidence, promoted and, when promoted, new_type;
// plus memory_type and event_id.
func MemoryValidateHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), MemoryValidateSpec(), func(ctx context.Context, in MemoryValidateInput) (any, error) {
		fb, err := d.Memories.Validate(ctx, in.MemoryID, in.WasHelpful, in.Context)
		if err != nil {
			return nil, err
		}
		return feedbackData(fb), nil
	})
}
