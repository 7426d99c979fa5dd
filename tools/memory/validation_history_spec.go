package memory

import (
	"github.com/mark3labs/mcp-go/mcp"
	mem "github.com/vaultgraph/vaultgraph/memory"
	"github.com/vaultgraph/vaultgraph/tools"
)

// ValidationHistoryName is validation_history's name.
const ValidationHistoryName = "validation_history"

// Paging of validation_history.
const (
	DefaultHistoryLimit = 50
	MaxHistoryLimit     = 500
)

// ValidationHistoryInput is validation_history's arguments.
type ValidationHistoryInput struct {
	MemoryID  string     `json:"memory_id"`
	EventType string     `json:"event_type"`
	Limit     *tools.Int `json:"limit"`
}

// ValidationHistorySpec is validation_history's contract (spec 004 names
// it; the shape is vaultgraph's, see docs/MEMORY.md).
func ValidationHistorySpec() mcp.Tool {
	return mcp.NewTool(ValidationHistoryName,
		mcp.WithDescription("Get validation event history: the memory_validate (validate), memory_apply (apply) and memory_outcome (outcome) events "+
			"of one memory, or of all memories when memory_id is omitted, oldest first (the newest limit events). "+
			"summary counts every matching event, not only the returned ones."),
		mcp.WithString("memory_id", mcp.Description("ID of the memory; omit for every memory")),
		mcp.WithString("event_type", mcp.Enum(mem.EventKinds...), mcp.Description("Only events of this type")),
		mcp.WithInteger("limit", mcp.DefaultNumber(DefaultHistoryLimit), mcp.Min(1), mcp.Max(MaxHistoryLimit), mcp.Description("Maximum events to return")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.Annotations("Validation history", true, false, true),
	)
}
