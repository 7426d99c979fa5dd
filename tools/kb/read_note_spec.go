package kb

import (
	"github.com/mark3labs/mcp-go/mcp"
	kbase "github.com/vaultgraph/vaultgraph/kb"
	"github.com/vaultgraph/vaultgraph/tools"
)

// ReadNoteName is read_note's name.
const ReadNoteName = "read_note"

// ReadNoteInput is read_note's arguments.
type ReadNoteInput struct {
	KnowledgeBaseName string     `json:"knowledge_base_name"`
	NotePath          string     `json:"note_path"`
	Offset            *tools.Int `json:"offset"`
	Limit             *tools.Int `json:"limit"`
}

// ReadNoteSpec is read_note's contract (spec 002).
func ReadNoteSpec() mcp.Tool {
	return mcp.NewTool(ReadNoteName,
		mcp.WithDescription("Read a note's content (frontmatter included) with optional pagination. Offsets count characters (Unicode code points), never splitting one. "+
			"The answer gives offset, next_offset, has_more and remaining_chars: while has_more, call again with offset = next_offset. "+
			"It also gives the note's version, for update_note's expected_version. Errors: knowledge_base_not_found, note_not_found, invalid_note_path."),
		mcp.WithString("knowledge_base_name", mcp.Required(),
			mcp.Description("KB containing the note")),
		mcp.WithString("note_path", mcp.Required(),
			mcp.Description("Path to the note"+notePathHelp)),
		mcp.WithInteger("offset",
			mcp.Min(0), mcp.DefaultNumber(0),
			mcp.Description("Character offset to start reading")),
		mcp.WithInteger("limit",
			mcp.Min(1), mcp.DefaultNumber(kbase.DefaultReadLimit),
			mcp.Description("Maximum characters to return")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.OutputSchema[ReadNoteResponse](),
		tools.Annotations("Read a knowledge base note", true, false, true),
	)
}
