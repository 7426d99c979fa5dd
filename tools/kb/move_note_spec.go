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
		mcp.WithDescription("Move or rename a note within its KB, if it passes the destination folder's rules; never overwrites. "+
			"Links to it are rewritten (links_updated), as Obsidian does."),
		mcp.WithString("knowledge_base_name", mcp.Required(),
			mcp.Description(kbNameHelp)),
		mcp.WithString("origin_note_path", mcp.Required(),
			mcp.Description("Current path"+notePathSuffix)),
		mcp.WithString("new_note_path", mcp.Required(),
			mcp.Description("New path"+notePathSuffix)),
		mcp.WithSchemaAdditionalProperties(false),
		// It rewrites links in other notes; a repeat answers note_not_found.
		tools.Annotations("Move a knowledge base note", false, true, false),
	)
}
