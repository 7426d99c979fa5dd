package graph

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/tools"
)

// Name and defaults of get_neighbors.
const (
	GetNeighborsName             = "get_neighbors"
	getNeighborsDefaultDirection = core.DirectionBoth
	getNeighborsDefaultLimit     = 20
)

// GetNeighborsInput is get_neighbors' arguments.
type GetNeighborsInput struct {
	ID        string     `json:"id"`
	Direction *string    `json:"direction"`
	Limit     *tools.Int `json:"limit"`
}

// GetNeighborsSpec is get_neighbors' contract (spec 000).
func GetNeighborsSpec() mcp.Tool {
	return mcp.NewTool(GetNeighborsName,
		mcp.WithDescription("Notes a note links to, then those linking to it, each group by ID, each note once. Content cut to 500 chars. "+
			"None: []."),
		mcp.WithString("id", mcp.Required(),
			mcp.Description(idShort)),
		mcp.WithString("direction",
			mcp.Enum(string(core.DirectionIn), string(core.DirectionOut), string(core.DirectionBoth)),
			mcp.DefaultString(string(getNeighborsDefaultDirection)),
			mcp.Description("in: notes linking here; out: notes it links to; both")),
		mcp.WithInteger("limit",
			mcp.Min(1), mcp.Max(core.MaxNeighborLimit), mcp.DefaultNumber(getNeighborsDefaultLimit),
			mcp.Description("Maximum notes")),
		mcp.WithSchemaAdditionalProperties(false),
		mcp.WithToolAnnotation(mcp.ToolAnnotation{
			Title:           "Get linked notes",
			ReadOnlyHint:    mcp.ToBoolPtr(true),
			DestructiveHint: mcp.ToBoolPtr(false),
			IdempotentHint:  mcp.ToBoolPtr(true),
			OpenWorldHint:   mcp.ToBoolPtr(false),
		}),
	)
}
