package graph

import (
	"context"

	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/server"
)

// GetNodeHandler answers get_node with NodeResponse (depth 0),
// NodeWithContextResponse (depth 1) or null.
func GetNodeHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), GetNodeSpec(), func(ctx context.Context, in GetNodeInput) (any, error) {
		detail, err := d.Reader.GetNode(ctx, in.ID, tools.IntOr(in.Depth, getNodeDefaultDepth))
		if err != nil || detail == nil {
			return nil, err
		}
		node := nodeResponse(detail.Node)
		if detail.Context == nil {
			return nodeAnswer(node), nil
		}
		neighbors := make([]NeighborResponse, len(detail.Context.Neighbors))
		for i, n := range detail.Context.Neighbors {
			neighbors[i] = NeighborResponse{NodeResponse: nodeResponse(n.NodeView), Direction: n.Direction}
		}
		return NodeWithContextResponse{
			NodeResponse:  node,
			IncomingCount: detail.Context.IncomingCount,
			OutgoingCount: detail.Context.OutgoingCount,
			Neighbors:     neighbors,
		}, nil
	})
}
