package graph

import (
	"context"

	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/core"
)

// GetNeighborsHandler answers get_neighbors with NodeResponse[], exactly
// the spec's shape (no direction field: the caller chose the direction).
func GetNeighborsHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), GetNeighborsSpec(), func(ctx context.Context, in GetNeighborsInput) (any, error) {
		dir := core.Direction(tools.Or(in.Direction, string(getNeighborsDefaultDirection)))
		neighbors, err := d.Reader.Neighbors(ctx, in.ID, dir, tools.IntOr(in.Limit, getNeighborsDefaultLimit))
		if err != nil {
			return nil, err
		}
		out := make(NodeList, len(neighbors))
		for i, n := range neighbors {
			out[i] = nodeResponse(n.NodeView)
		}
		return out, nil
	})
}
