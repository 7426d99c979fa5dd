package memory

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// MemoryOutcomeName is memory_outcome's name.
const MemoryOutcomeName = "memory_outcome"

// MemoryOutcomeInput is memory_outcome's arguments.
type MemoryOutcomeInput struct {
	MemoryID string `json:"memory_id"`
	Success  bool   `json:"success"`
	Outcome  string `json:"outcome"`
	EventID  string `json:"event_id"`
	// ErrorMsg and SessionID are the original server's parameters.
	ErrorMsg  string `json:"error_msg"`
	SessionID string `json:"session_id"`
}

// MemoryOutcomeSpec is memory_outcome's contract (spec 004 names it; the
// shape is vaultgraph's, see docs/MEMORY.md).
func MemoryOutcomeSpec() mcp.Tool {
	return mcp.NewTool(MemoryOutcomeName,
		mcp.WithDescription("Record the outcome of applying a memory and adjust its confidence (LEARN phase): +0.1 on success (max 1.0), "+
			"-0.15 on failure (min 0.0), as memory_validate. At 0.9 the memory is promoted to a golden rule (promoted: true, new_type: golden_rule). "+
			"event_id, when given, must be the memory_apply event this outcome closes."),
		mcp.WithString("memory_id", mcp.Required(), mcp.Description("ID of the memory that was applied")),
		mcp.WithBoolean("success", mcp.Required(), mcp.Description("Whether applying the memory succeeded")),
		mcp.WithString("outcome", mcp.Description("Optional description of what happened")),
		mcp.WithString("event_id", mcp.Description("Optional event_id of the memory_apply call this outcome belongs to")),
		mcp.WithString("error_msg", mcp.Description("Optional error message if the application failed; kept with the outcome")),
		mcp.WithString("session_id", mcp.Description("Optional session identifier, kept with the event")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.Annotations("Record a memory outcome (LEARN)", false, false, false),
	)
}
