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
		mcp.WithDescription("Create a new node: writes {directory}/{title}.md in the vault (the file name is the title made safe for file systems; missing folders are created) and returns the created node. Fails with NODE_EXISTS when that file exists: it never overwrites. directory must stay inside the vault."),
		mcp.WithString("title", mcp.Required(),
			mcp.Description("Node title (becomes filename for DocStore)")),
		mcp.WithString("content", mcp.Required(),
			mcp.Description("Full text content (markdown)")),
		mcp.WithArray("tags",
			mcp.WithStringItems(), mcp.DefaultArray([]string{}),
			mcp.Description("Classification tags")),
		mcp.WithString("directory",
			mcp.Description("Optional: subdirectory path (e.g., 'notes/drafts')")),
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
