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
		mcp.WithDescription("Check a note against its folder's current rules, changing nothing, and get the KB's organization_rules. "+
			"Failing is a normal answer (machine_validation.passed false, with the issues)."),
		mcp.WithString("knowledge_base_name", mcp.Required(),
			mcp.Description(kbNameHelp)),
		mcp.WithString("note_path", mcp.Required(),
			mcp.Description(notePathHelp)),
		mcp.WithSchemaAdditionalProperties(false),
		tools.Annotations("Validate a knowledge base note", true, false, true),
	)
}
