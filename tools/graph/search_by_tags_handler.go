package graph

import (
	"context"

	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/core"
)

// SearchByTagsHandler answers search_by_tags with NodeResponse[].
func SearchByTagsHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), SearchByTagsSpec(), func(ctx context.Context, in SearchByTagsInput) (any, error) {
		mode := core.TagMode(tools.Or(in.Mode, string(searchByTagsDefaultMode)))
		notes, err := d.Reader.SearchByTags(ctx, in.Tags, mode, tools.IntOr(in.Limit, searchByTagsDefaultLimit))
		if err != nil {
			return nil, err
		}
		return nodeResponses(notes), nil
	})
}
