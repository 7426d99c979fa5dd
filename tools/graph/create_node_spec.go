package graph

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// CreateNodeName is create_node's name.
const CreateNodeName = "create_node"

// CreateNodeInput is create_node's arguments.
type CreateNodeInput struct {
	Title     string   `json:"title"`
	Content   string   `json:"content"`
	Tags      []string `json:"tags"`
	Directory string   `json:"directory"`
}

// WrittenNote is what create_node and update_node answer, as their output
// schemas describe it: NodeResponse less the fields neither can carry (they
// write notes, which have no type or mime; unresolved is get_node's). Its
// own type so that those schemas do not list them (issue 47, the tools/list
// budget); TestWrittenNoteIsNodeResponsesNoteFields keeps its fields
// NodeResponse's.
type WrittenNote struct {
	ID      string     `json:"id"`
	Title   string     `json:"title"`
	Content string     `json:"content"`
	Tags    []string   `json:"tags"`
	Links   []LinkInfo `json:"links"`
}

// WrittenUpdate is update_node's answer as its output schema describes it
// (UpdateResponse with a WrittenNote).
type WrittenUpdate struct {
	WrittenNote
	Renamed *RenameResponse `json:"renamed,omitempty"`
}

// CreateNodeSpec is create_node's contract (spec 000).
func CreateNodeSpec() mcp.Tool {
	return mcp.NewTool(CreateNodeName,
		mcp.WithDescription("Create {directory}/{title}.md (title made file-safe, folders created) and return the note. Never overwrites: "+
			"NODE_EXISTS if the file exists. Adds relinked: [{id, links}] if it rewrote other notes' links."),
		mcp.WithString("title", mcp.Required(),
			mcp.Description("Title, also the file name")),
		mcp.WithString("content", mcp.Required(),
			mcp.Description("Markdown text")),
		mcp.WithArray("tags",
			mcp.WithStringItems(), mcp.DefaultArray([]string{}),
			mcp.Description("Tags")),
		mcp.WithString("directory",
			mcp.Description("Vault folder, e.g. 'notes/drafts'")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.OutputSchema[WrittenNote](), // relinked, rare, is told by the description (tools/list budget)
		mcp.WithToolAnnotation(mcp.ToolAnnotation{
			Title:        "Create a note",
			ReadOnlyHint: mcp.ToBoolPtr(false),
			// It refuses to overwrite, so it destroys nothing.
			DestructiveHint: mcp.ToBoolPtr(false),
			// A repeat changes nothing but answers NODE_EXISTS instead of
			// the node; declared false so clients do not retry blindly.
			IdempotentHint: mcp.ToBoolPtr(false),
			OpenWorldHint:  mcp.ToBoolPtr(false),
		}),
	)
}
