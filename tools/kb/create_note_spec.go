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

// Parameter descriptions shared by the note tools. The spec's own words
// ("KB containing the note", "Path to the note") left out what a model
// gets wrong: paths are relative to the KB's subfolder, while answers give
// them from the vault's root.
const (
	kbNameHelp     = "Name of the KB (list_knowledge_bases)"
	notePathSuffix = " relative to the KB's subfolder, ending in .md"
	notePathHelp   = "Path of the note" + notePathSuffix
)

// CreateNoteSpec is create_note's contract (spec 002).
func CreateNoteSpec() mcp.Tool {
	return mcp.NewTool(CreateNoteName,
		mcp.WithDescription("Create a note at {KB subfolder}/{note_path}; missing folders are created; never overwrites (note_already_exists). "+
			"The note is checked against its folder's rules first: on failure nothing is written and folder_constraint_violation lists each issue. "+
			"The answer returns the KB's organization_rules and validation_instruction_for_llm: check the note against them yourself."),
		mcp.WithString("knowledge_base_name", mcp.Required(),
			mcp.Description(kbNameHelp)),
		mcp.WithString("note_path", mcp.Required(),
			mcp.Description(notePathHelp)),
		mcp.WithString("note_content", mcp.Required(),
			mcp.Description("Markdown content")),
		mcp.WithSchemaAdditionalProperties(false),
		// It refuses to overwrite, so it destroys nothing; a repeat answers
		// note_already_exists, so it is not declared idempotent.
		tools.Annotations("Create a knowledge base note", false, false, false),
	)
}
