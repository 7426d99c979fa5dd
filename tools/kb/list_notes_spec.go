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
		mcp.WithDescription("A KB's notes (.md, not hidden), sorted, as vault paths: "+
			"drop the KB's subfolder for note_path. While has_more, call again with offset = next_offset."),
		mcp.WithString("knowledge_base_name", mcp.Required(),
			mcp.Description(kbNameHelp)),
		mcp.WithString("subfolder",
			mcp.Description("Only this folder (a path like note_path)")),
		mcp.WithInteger("offset",
			mcp.Min(0), mcp.DefaultNumber(0),
			mcp.Description("Notes to skip, in path order")),
		mcp.WithInteger("limit",
			mcp.Min(1), mcp.Max(kbase.MaxListLimit), mcp.DefaultNumber(kbase.DefaultListLimit),
			mcp.Description("Maximum notes")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.OutputSchema[ListNotesResponse](),
		tools.Annotations("List knowledge base notes", true, false, true),
	)
}
