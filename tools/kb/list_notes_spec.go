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
		mcp.WithDescription("List notes managed under a KB: every .md file under its subfolder (hidden files and folders left out), as vault-relative paths sorted by path. "+
			"To pass one of them as note_path to another tool, drop the KB's subfolder prefix. Errors: knowledge_base_not_found, invalid_note_path (bad subfolder filter)."),
		mcp.WithString("knowledge_base_name", mcp.Required(),
			mcp.Description("KB to list notes from")),
		mcp.WithString("subfolder",
			mcp.Description("Optional: filter to specific subfolder (relative to the KB's subfolder, like note_path)")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.OutputSchema[ListNotesResponse](),
		tools.Annotations("List knowledge base notes", true, false, true),
	)
}
