package graph

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/core"
)

// SearchByTagsHandler answers search_by_tags with NodeResponse[].
func SearchByTagsHandler(d Deps) server.ToolHandlerFunc {
	return handle(d, SearchByTagsSpec(), func(ctx context.Context, in SearchByTagsInput) (any, error) {
		mode := core.TagMode(stringOr(in.Mode, string(searchByTagsDefaultMode)))
		notes, err := d.Reader.SearchByTags(ctx, in.Tags, mode, intOr(in.Limit, searchByTagsDefaultLimit))
		if err != nil {
			return nil, err
		}
		return nodeResponses(notes), nil
	})
}
