package kb

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// CreateNoteName is create_note's name.
const CreateNoteName = "create_note"

// CreateNoteInput is create_note's arguments.
type CreateNoteInput struct {
	KnowledgeBaseName string `json:"knowledge_base_name"`
	NotePath          string `json:"note_path"`
	NoteContent       string `json:"note_content"`
}

// notePathHelp is appended to the spec's description of a note path.
const notePathHelp = "; relative to the KB's subfolder, ending in .md (answers give vault-relative paths)"

// CreateNoteSpec is create_note's contract (spec 002).
func CreateNoteSpec() mcp.Tool {
	return mcp.NewTool(CreateNoteName,
		mcp.WithDescription("Create a new note under a KB at {KB subfolder}/{note_path}; missing folders are created. "+
			"The content is machine-validated against the folder constraint that applies (the deepest constrained folder containing the note): on failure nothing is written and the error folder_constraint_violation lists each issue. "+
			"The answer returns the KB's organization_rules and validation_instruction_for_llm: check the note against them yourself. "+
			"Never overwrites: note_already_exists. Other errors: knowledge_base_not_found, invalid_note_path."),
		mcp.WithString("knowledge_base_name", mcp.Required(),
			mcp.Description("KB to create note in")),
		mcp.WithString("note_path", mcp.Required(),
			mcp.Description("Path for the note (relative to KB subfolder); ending in .md")),
		mcp.WithString("note_content", mcp.Required(),
			mcp.Description("Full Markdown content")),
		mcp.WithSchemaAdditionalProperties(false),
		// It refuses to overwrite, so it destroys nothing; a repeat answers
		// note_already_exists, so it is not declared idempotent.
		tools.Annotations("Create a knowledge base note", false, false, false),
	)
}
