package graph

import (
	"context"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/tools"
)

// CreateNodeHandler answers create_node with CreateResponse: the created
// node, plus "relinked" when the create rewrote other notes.
func CreateNodeHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), CreateNodeSpec(), func(ctx context.Context, in CreateNodeInput) (any, error) {
		tags := in.Tags
		if tags == nil {
			tags = []string{}
		}
		res, err := d.Writer.Create(ctx, core.NewNote{Title: in.Title, Content: in.Content, Tags: tags, Directory: in.Directory})
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
		out := CreateResponse{NodeResponse: nodeResponse(res.NodeView)}
		if len(res.Relinked) > 0 {
			out.Relinked = relinkedResponse(res.Relinked)
		}
		return out, nil
	})
}
