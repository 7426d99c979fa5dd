package graph

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/tools"
)

// RandomNodeHandler answers random_node with NodeResponse or null.
func RandomNodeHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), RandomNodeSpec(), func(ctx context.Context, in RandomNodeInput) (any, error) {
		node, err := d.Reader.RandomNode(ctx, in.Tags)
		if err != nil || node == nil {
			return nil, err
		}
		return nodeAnswer(nodeResponse(*node)), nil
	})
}
