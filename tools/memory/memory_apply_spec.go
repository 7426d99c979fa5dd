package memory

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// MemoryApplyName is memory_apply's name.
const MemoryApplyName = "memory_apply"

// MemoryApplyInput is memory_apply's arguments.
type MemoryApplyInput struct {
	MemoryID  string `json:"memory_id"`
	Context   string `json:"context"`
	SessionID string `json:"session_id"`
}

// MemoryApplySpec is memory_apply's contract (spec 004 names it; the
// shape is vaultgraph's, see docs/MEMORY.md).
func MemoryApplySpec() mcp.Tool {
	return mcp.NewTool(MemoryApplyName,
		mcp.WithDescription("Record memory application (TRY phase): say that a memory is being applied to a task. Confidence does not change; "+
			"the application is kept in validation_history and its event_id is returned. When the result is known, call memory_outcome "+
			"with the memory_id, success and this event_id (LEARN phase)."),
		mcp.WithString("memory_id", mcp.Required(), mcp.Description("ID of the memory being applied")),
		mcp.WithString("context", mcp.Description("The task or situation the memory is applied to")),
		mcp.WithString("session_id", mcp.Description("Optional session identifier, kept with the event")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.Annotations("Apply a memory (TRY)", false, false, false),
	)
}
