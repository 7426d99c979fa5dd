package kb

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// ListNotesName is list_notes' name.
const ListNotesName = "list_notes"

// ListNotesInput is list_notes' arguments.
type ListNotesInput struct {
	KnowledgeBaseName string  `json:"knowledge_base_name"`
	Subfolder         *string `json:"subfolder"`
}

// ListNotesSpec is list_notes' contract (spec 002).
func ListNotesSpec() mcp.Tool {
	return mcp.NewTool(ListNotesName,
		mcp.WithDescription("List the notes of a KB (every .md file under its subfolder, hidden ones left out) as paths from the vault's root, sorted. "+
			"To pass one as note_path, drop the KB's subfolder prefix."),
		mcp.WithString("knowledge_base_name", mcp.Required(),
			mcp.Description(kbNameHelp)),
		mcp.WithString("subfolder",
			mcp.Description("Optional: only this folder, relative to the KB's subfolder like note_path")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.OutputSchema[ListNotesResponse](),
		tools.Annotations("List knowledge base notes", true, false, true),
	)
}
