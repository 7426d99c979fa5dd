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

// CreateNodeSpec is create_node's contract (spec 000).
func CreateNodeSpec() mcp.Tool {
	return mcp.NewTool(CreateNodeName,
		mcp.WithDescription("Create a note: writes {directory}/{title}.md (the title made safe as a file name; missing folders are created) and returns the note. "+
			"Never overwrites: NODE_EXISTS when that file exists."),
		mcp.WithString("title", mcp.Required(),
			mcp.Description("Title; also the file name")),
		mcp.WithString("content", mcp.Required(),
			mcp.Description("Markdown text")),
		mcp.WithArray("tags",
			mcp.WithStringItems(), mcp.DefaultArray([]string{}),
			mcp.Description("Tags")),
		mcp.WithString("directory",
			mcp.Description("Optional: folder in the vault, e.g. 'notes/drafts'")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.OutputSchema[NodeResponse](),
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
