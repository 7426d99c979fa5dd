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
// what it forgives. get_node says it in full, the other tools name it
// (idShort): a model reads the whole tool list, and the list is read on
// every turn (issue 47, the tools/list budget).
const (
	idHelp  = "Note ID: vault path, e.g. 'ideas/plan.md' (any case, .md optional)"
	idShort = "Note ID (vault path)"
)

// GetNodeSpec is get_node's contract (spec 000).
func GetNodeSpec() mcp.Tool {
	return mcp.NewTool(GetNodeName,
		mcp.WithDescription("A note: content (up to 10,000 chars), tags, outgoing links with titles. "+
			"depth 1 adds link counts and up to 20 linked notes (10 each way if both have them) with their direction and content cut to 200 chars. "+
			"Missing: null."),
		mcp.WithString("id", mcp.Required(),
			mcp.Description(idHelp)),
		mcp.WithInteger("depth",
			mcp.Min(0), mcp.Max(core.MaxNodeDepth), mcp.DefaultNumber(getNodeDefaultDepth),
			mcp.Description("0: the note; 1: with linked notes")),
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
