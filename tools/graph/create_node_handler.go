package graph

import (
	"context"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/tools"
)

// CreateNodeHandler answers create_node with the created NodeResponse.
func CreateNodeHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), CreateNodeSpec(), func(ctx context.Context, in CreateNodeInput) (any, error) {
		tags := in.Tags
		if tags == nil {
			tags = []string{}
		}
		node, err := d.Writer.Create(ctx, core.NewNote{Title: in.Title, Content: in.Content, Tags: tags, Directory: in.Directory})
		if errors.Is(err, core.ErrExists) {
			where := "the vault root"
			if in.Directory != "" {
				where = fmt.Sprintf("%q", in.Directory)
			}
			return nil, &codeError{CodeNodeExists, fmt.Sprintf("a node titled %q already exists in %s; choose another title or use update_node", in.Title, where)}
		}
		if err != nil {
			return nil, err
		}
		return nodeResponse(*node), nil
	})
}
