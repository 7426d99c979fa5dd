package memory

import (
	"context"
	"strings"

	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/tools"
)

// MemoryOutcomeHandler answers memory_outcome with memory_validate's
// fields plus success and apply_event_id.
func MemoryOutcomeHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), MemoryOutcomeSpec(), func(ctx context.Context, in MemoryOutcomeInput) (any, error) {
		text := in.Outcome
		if in.ErrorMsg != "" {
			text = strings.TrimSpace(text + "\nerror: " + in.ErrorMsg)
		}
		fb, err := d.Memories.Outcome(ctx, in.MemoryID, in.Success, text, in.EventID, in.SessionID)
		if err != nil {
			return nil, err
		}
		data := feedbackData(fb)
		data["success"] = in.Success
		if in.EventID != "" {
			data["apply_event_id"] = in.EventID
		}
		return data, nil
	})
}
