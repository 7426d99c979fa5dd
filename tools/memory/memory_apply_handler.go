package memory

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
	mem "github.com/vaultgraph/vaultgraph/memory"
	"github.com/vaultgraph/vaultgraph/tools"
)

// MemoryApplyResponse is memory_apply's data.
type MemoryApplyResponse struct {
	MemoryID   string  `json:"memory_id"`
	EventID    string  `json:"event_id"`
	EventType  string  `json:"event_type"`
	MemoryType string  `json:"memory_type"`
	Content    string  `json:"content"`
	Confidence float64 `json:"confidence"`
	AppliedAt  string  `json:"applied_at"`
	NextStep   string  `json:"next_step"`
}

// MemoryApplyHandler answers memory_apply.
func MemoryApplyHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), MemoryApplySpec(), func(ctx context.Context, in MemoryApplyInput) (any, error) {
		m, ev, err := d.Memories.Apply(ctx, in.MemoryID, in.Context, in.SessionID)
		if err != nil {
			return nil, err
		}
		return MemoryApplyResponse{MemoryID: m.ID, EventID: ev.ID, EventType: ev.Kind, MemoryType: m.Type, Content: m.Content,
			Confidence: mem.ToFloat(m.Confidence), AppliedAt: ts(ev.At),
			NextStep: "Call memory_outcome with memory_id, success and event_id " + ev.ID + " once the result is known."}, nil
	})
}
