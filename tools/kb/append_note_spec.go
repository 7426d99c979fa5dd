package kb

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// AppendNoteName is append_note's name.
const AppendNoteName = "append_note"

// AppendNoteInput is append_note's arguments.
type AppendNoteInput struct {
	KnowledgeBaseName string `json:"knowledge_base_name"`
	NotePath          string `json:"note_path"`
	NoteContent       string `json:"note_content"`
}

// AppendNoteSpec is append_note's contract (spec 002).
func AppendNoteSpec() mcp.Tool {
	return mcp.NewTool(AppendNoteName,
		mcp.WithDescription("Append content to an existing note: the new content is the original, a line break and note_content, machine-validated as a whole before it is written (on failure nothing is written). "+
			"The answer holds the original and the updated note. Errors: knowledge_base_not_found, note_not_found, invalid_note_path, folder_constraint_violation, version_conflict (the note kept changing under concurrent writers)."),
		mcp.WithString("knowledge_base_name", mcp.Required(),
			mcp.Description("KB containing the note")),
		mcp.WithString("note_path", mcp.Required(),
			mcp.Description("Path to the note"+notePathHelp)),
		mcp.WithString("note_content", mcp.Required(),
			mcp.Description("Content to append")),
		mcp.WithSchemaAdditionalProperties(false),
		// It only adds; each call adds again.
		tools.Annotations("Append to a knowledge base note", false, false, false),
	)
}
