package kb

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// DeleteNoteName is delete_note's name.
const DeleteNoteName = "delete_note"

// DeleteNoteInput is delete_note's arguments.
type DeleteNoteInput struct {
	KnowledgeBaseName string `json:"knowledge_base_name"`
	NotePath          string `json:"note_path"`
}

// DeleteNoteSpec is delete_note's contract (spec 002).
func DeleteNoteSpec() mcp.Tool {
	return mcp.NewTool(DeleteNoteName,
		mcp.WithDescription("Delete a note's file; note_not_found if it is missing."),
		mcp.WithString("knowledge_base_name", mcp.Required(),
			mcp.Description(kbNameHelp)),
		mcp.WithString("note_path", mcp.Required(),
			mcp.Description(notePathHelp)),
		mcp.WithSchemaAdditionalProperties(false),
		// A repeat answers note_not_found: declared not idempotent so
		// clients do not retry blindly.
		tools.OutputSchema[DeleteNoteResponse](),
		tools.Annotations("Delete a knowledge base note", false, true, false),
	)
}
