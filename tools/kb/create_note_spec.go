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
// them from the vault's root. Where a KB name comes from is said once, by
// list_knowledge_bases (issue 47, the tools/list budget).
const (
	kbNameHelp     = "KB name"
	notePathSuffix = " from the KB's subfolder, ending in .md"
	notePathHelp   = "Path" + notePathSuffix
)

// CreateNoteSpec is create_note's contract (spec 002).
func CreateNoteSpec() mcp.Tool {
	return mcp.NewTool(CreateNoteName,
		mcp.WithDescription("Create {KB subfolder}/{note_path}, never overwriting (note_already_exists); "+
			"refused with the issues (folder_constraint_violation) if it breaks its folder's rules. "+
			"Check it yourself against the answer's organization_rules and validation_instruction_for_llm."),
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
