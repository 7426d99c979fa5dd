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
		mcp.WithDescription("Append text after a line break; "+
			"refused (folder_constraint_violation) if the note then breaks its folder's rules. "+
			"The answer holds the note before and after."),
		mcp.WithString("knowledge_base_name", mcp.Required(),
			mcp.Description(kbNameHelp)),
		mcp.WithString("note_path", mcp.Required(),
			mcp.Description(notePathHelp)),
		mcp.WithString("note_content", mcp.Required(),
			mcp.Description("Text to append")),
		mcp.WithSchemaAdditionalProperties(false),
		// It only adds; each call adds again.
		tools.Annotations("Append to a knowledge base note", false, false, false),
	)
}
