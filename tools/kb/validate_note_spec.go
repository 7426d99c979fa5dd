package kb

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// ValidateNoteName is validate_note's name.
const ValidateNoteName = "validate_note"

// ValidateNoteInput is validate_note's arguments.
type ValidateNoteInput struct {
	KnowledgeBaseName string `json:"knowledge_base_name"`
	NotePath          string `json:"note_path"`
}

// ValidateNoteSpec is validate_note's contract (spec 002).
func ValidateNoteSpec() mcp.Tool {
	return mcp.NewTool(ValidateNoteName,
		mcp.WithDescription("Re-validate an existing note without modification: machine validation against the folder constraint that applies now, with the KB's organization_rules. "+
			"A failing note is a normal answer with machine_validation.passed false and its issues (use it to lint a folder or audit notes after a constraint changed). "+
			"Errors: knowledge_base_not_found, note_not_found, invalid_note_path."),
		mcp.WithString("knowledge_base_name", mcp.Required(),
			mcp.Description("KB containing the note")),
		mcp.WithString("note_path", mcp.Required(),
			mcp.Description("Path to the note"+notePathHelp)),
		mcp.WithSchemaAdditionalProperties(false),
		tools.Annotations("Validate a knowledge base note", true, false, true),
	)
}
