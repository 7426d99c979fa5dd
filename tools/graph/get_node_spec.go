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

// idHelp describes a note ID argument. The spec's "Node ID (file path for
// DocStore)" names its own abstractions; a model needs the ID's form and
// what it forgives.
const idHelp = "Note ID: its path in the vault, e.g. 'ideas/plan.md' (any letter case, .md optional)"

// GetNodeSpec is get_node's contract (spec 000).
func GetNodeSpec() mcp.Tool {
	return mcp.NewTool(GetNodeName,
		mcp.WithDescription("Get one note: its content (up to 10,000 characters), tags and outgoing links with their titles. "+
			"depth 1 adds incomingCount, outgoingCount and up to 20 linked notes (up to 10 each way, the rest to the side that has more), each marked \"direction\": \"in\" (links here) or \"out\" (linked from here), content cut to 200 characters. "+
			"A missing note is null."),
		mcp.WithString("id", mcp.Required(),
			mcp.Description(idHelp)),
		mcp.WithInteger("depth",
			mcp.Min(0), mcp.Max(core.MaxNodeDepth), mcp.DefaultNumber(getNodeDefaultDepth),
			mcp.Description("0 = the note only, 1 = with its linked notes")),
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
