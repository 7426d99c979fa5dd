package memory

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// MemoryValidateName is memory_validate's name.
const MemoryValidateName = "memory_validate"

// MemoryValidateInput is memory_validate's arguments.
type MemoryValidateInput struct {
	MemoryID   string `json:"memory_id"`
	WasHelpful bool   `json:"was_helpful"`
	Context    string `json:"context"`
}

// MemoryValidateSpec is memory_validate's contract (spec 004).
func MemoryValidateSpec() mcp.Tool {
	return mcp.NewTool(MemoryValidateName,
		mcp.WithDescription("Validate a memory and adjust its confidence score: +0.1 when helpful (max 1.0), -0.15 when not (min 0.0). "+
			"When confidence reaches 0.9 the memory is promoted to a golden rule (promoted: true, new_type: golden_rule). The event is kept in validation_history."),
		mcp.WithString("memory_id", mcp.Required(), mcp.Description("ID of the memory to validate")),
		mcp.WithBoolean("was_helpful", mcp.Required(), mcp.Description("Whether the memory was helpful")),
		mcp.WithString("context", mcp.Description("Optional context describing the usage")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.Annotations("Validate a memory", false, false, false),
	)
}
