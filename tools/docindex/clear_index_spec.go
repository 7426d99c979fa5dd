package docindex

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// ClearIndexName is the tool's name.
const ClearIndexName = "clear_index"

// ClearIndexInput is clear_index's arguments.
type ClearIndexInput struct {
	Confirm bool `json:"confirm"`
}

// ClearIndexOutput is clear_index's data.
type ClearIndexOutput struct {
	DeletedCount int `json:"deleted_count"`
}

// safetyMessage is spec 004's answer to clear_index without confirm=true.
const safetyMessage = "Safety check: Set confirm=True to delete all documents"

// ClearIndexSpec is clear_index's contract (spec 004).
func ClearIndexSpec() mcp.Tool {
	return mcp.NewTool(ClearIndexName,
		mcp.WithDescription("Delete all documents from the collection. Requires explicit confirmation (confirm=true). Deletes every document chunk; memories are kept (they are the user's knowledge, not a copy of files: use memory_forget for them)."),
		mcp.WithBoolean("confirm", mcp.Required(),
			mcp.Description("Safety gate - must be true to proceed")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.Annotations("Clear the document index", false, true, true),
	)
}
