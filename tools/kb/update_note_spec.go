package kb

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// UpdateNoteName is update_note's name.
const UpdateNoteName = "update_note"

// UpdateNoteInput is update_note's arguments.
type UpdateNoteInput struct {
	KnowledgeBaseName string  `json:"knowledge_base_name"`
	NotePath          string  `json:"note_path"`
	NoteContent       string  `json:"note_content"`
	ExpectedVersion   *string `json:"expected_version"`
}

// UpdateNoteSpec is update_note's contract (spec 002).
func UpdateNoteSpec() mcp.Tool {
	return mcp.NewTool(UpdateNoteName,
		mcp.WithDescription("Replace a note's content; "+
			"refused (folder_constraint_violation) if it breaks its folder's rules, or (version_conflict) if it changed since expected_version. "+
			"The answer holds the note before and after."),
		mcp.WithString("knowledge_base_name", mcp.Required(),
			mcp.Description(kbNameHelp)),
		mcp.WithString("note_path", mcp.Required(),
			mcp.Description(notePathHelp)),
		mcp.WithString("note_content", mcp.Required(),
			mcp.Description("New markdown content")),
		mcp.WithString("expected_version",
			mcp.Description("Version from read_note, create_note or update_note")),
		mcp.WithSchemaAdditionalProperties(false),
		// The content is replaced entirely; the same update twice leaves
		// what the first did.
		tools.Annotations("Update a knowledge base note", false, true, true),
	)
}
