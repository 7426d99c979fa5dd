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
		mcp.WithDescription("Read a note with frontmatter, a page at a time: while has_more, call again with offset = next_offset. "+
			"version is update_note's expected_version."),
		mcp.WithString("knowledge_base_name", mcp.Required(),
			mcp.Description(kbNameHelp)),
		mcp.WithString("note_path", mcp.Required(),
			mcp.Description(notePathHelp)),
		mcp.WithInteger("offset",
			mcp.Min(0), mcp.DefaultNumber(0),
			mcp.Description("Character to start at")),
		mcp.WithInteger("limit",
			mcp.Min(1), mcp.DefaultNumber(kbase.DefaultReadLimit),
			mcp.Description("Maximum characters")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.OutputSchema[ReadNoteResponse](),
		tools.Annotations("Read a knowledge base note", true, false, true),
	)
}
