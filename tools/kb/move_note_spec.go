package kb

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// MoveNoteName is move_note's name.
const MoveNoteName = "move_note"

// MoveNoteInput is move_note's arguments.
type MoveNoteInput struct {
	KnowledgeBaseName string `json:"knowledge_base_name"`
	OriginNotePath    string `json:"origin_note_path"`
	NewNotePath       string `json:"new_note_path"`
}

// MoveNoteSpec is move_note's contract (spec 002).
func MoveNoteSpec() mcp.Tool {
	return mcp.NewTool(MoveNoteName,
		mcp.WithDescription("Move a note to a new path within the same KB (both paths relative to the KB's subfolder). "+
			"The note is machine-validated against the destination folder's constraint first; on failure it stays where it was. Never overwrites. "+
			"Links in other notes that pointed at it are rewritten to the new path (links_updated counts them), as Obsidian does. "+
			"Errors: knowledge_base_not_found, note_not_found, note_already_exists, invalid_note_path, folder_constraint_violation."),
		mcp.WithString("knowledge_base_name", mcp.Required(),
			mcp.Description("KB containing the note")),
		mcp.WithString("origin_note_path", mcp.Required(),
			mcp.Description("Current path"+notePathHelp)),
		mcp.WithString("new_note_path", mcp.Required(),
			mcp.Description("Destination path"+notePathHelp)),
		mcp.WithSchemaAdditionalProperties(false),
		// It rewrites links in other notes; a repeat answers note_not_found.
		tools.Annotations("Move a knowledge base note", false, true, false),
	)
}
