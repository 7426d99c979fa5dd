package kb

import (
	"github.com/mark3labs/mcp-go/mcp"
	kbase "github.com/vaultgraph/vaultgraph/kb"
	"github.com/vaultgraph/vaultgraph/tools"
)

// ListNotesName is list_notes' name.
const ListNotesName = "list_notes"

// ListNotesInput is list_notes' arguments.
type ListNotesInput struct {
	KnowledgeBaseName string     `json:"knowledge_base_name"`
	Subfolder         *string    `json:"subfolder"`
	Offset            *tools.Int `json:"offset"`
	Limit             *tools.Int `json:"limit"`
}

// ListNotesSpec is list_notes' contract (spec 002), with paging in the
// style of read_note (an addition: a knowledge base over a large vault
// would otherwise answer hundreds of kilobytes at once).
func ListNotesSpec() mcp.Tool {
	return mcp.NewTool(ListNotesName,
		mcp.WithDescription("List the notes of a KB (every .md file under its subfolder, hidden ones left out) as paths from the vault's root, sorted. "+
			"To pass one as note_path, drop the KB's subfolder prefix. "+
			"Answers one page: while has_more, call again with offset = next_offset."),
		mcp.WithString("knowledge_base_name", mcp.Required(),
			mcp.Description(kbNameHelp)),
		mcp.WithString("subfolder",
			mcp.Description("Optional: only this folder, relative to the KB's subfolder like note_path")),
		mcp.WithInteger("offset",
			mcp.Min(0), mcp.DefaultNumber(0),
			mcp.Description("Number of notes (in path order) to skip")),
		mcp.WithInteger("limit",
			mcp.Min(1), mcp.Max(kbase.MaxListLimit), mcp.DefaultNumber(kbase.DefaultListLimit),
			mcp.Description("Maximum notes to return")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.OutputSchema[ListNotesResponse](),
		tools.Annotations("List knowledge base notes", true, false, true),
	)
}
