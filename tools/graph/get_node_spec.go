package graph

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/tools"
)

// Name and default of get_node.
const (
	GetNodeName         = "get_node"
	getNodeDefaultDepth = 0
)

// GetNodeInput is get_node's arguments.
type GetNodeInput struct {
	ID    string     `json:"id"`
	Depth *tools.Int `json:"depth"`
}

// GetNodeSpec is get_node's contract (spec 000).
func GetNodeSpec() mcp.Tool {
	return mcp.NewTool(GetNodeName,
		mcp.WithDescription("Retrieve single node with optional neighbor context. depth 0 returns the node (content up to 10,000 characters) with its outgoing links and their titles. depth 1 adds incomingCount, outgoingCount and up to 20 neighbors, each marked \"direction\": \"in\" (links here) or \"out\" (linked from here), content cut to 200 characters. The ID matches in any letter case. A missing node is null."),
		mcp.WithString("id", mcp.Required(),
			mcp.Description("Node ID (file path for DocStore)")),
		mcp.WithInteger("depth",
			mcp.Min(0), mcp.Max(core.MaxNodeDepth), mcp.DefaultNumber(getNodeDefaultDepth),
			mcp.Description("0 = node only, 1 = include neighbors")),
		mcp.WithSchemaAdditionalProperties(false),
		mcp.WithToolAnnotation(mcp.ToolAnnotation{
			Title:           "Get a note",
			ReadOnlyHint:    mcp.ToBoolPtr(true),
			DestructiveHint: mcp.ToBoolPtr(false),
			IdempotentHint:  mcp.ToBoolPtr(true),
			OpenWorldHint:   mcp.ToBoolPtr(false),
		}),
	)
}
