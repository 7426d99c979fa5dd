package graph

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/tools"
)

// Name and defaults of search_by_tags.
const (
	SearchByTagsName         = "search_by_tags"
	searchByTagsDefaultMode  = core.TagModeAny
	searchByTagsDefaultLimit = 20
)

// SearchByTagsInput is search_by_tags' arguments.
type SearchByTagsInput struct {
	Tags  []string   `json:"tags"`
	Mode  *string    `json:"mode"`
	Limit *tools.Int `json:"limit"`
}

// SearchByTagsSpec is search_by_tags' contract (spec 000).
func SearchByTagsSpec() mcp.Tool {
	return mcp.NewTool(SearchByTagsName,
		mcp.WithDescription("Notes with the given tags, by ID: any case, # optional, nested tags included (go: #go/lang). "+
			"Content cut to 500 chars. None: []."),
		mcp.WithArray("tags", mcp.Required(),
			mcp.WithStringItems(), mcp.MinItems(1),
			mcp.Description("Tags to match")),
		mcp.WithString("mode",
			mcp.Enum(string(core.TagModeAny), string(core.TagModeAll)),
			mcp.DefaultString(string(searchByTagsDefaultMode)),
			mcp.Description("any: one tag or more; all: every tag")),
		mcp.WithInteger("limit",
			mcp.Min(1), mcp.Max(core.MaxTagSearchLimit), mcp.DefaultNumber(searchByTagsDefaultLimit),
			mcp.Description("Maximum notes")),
		mcp.WithSchemaAdditionalProperties(false),
		mcp.WithToolAnnotation(mcp.ToolAnnotation{
			Title:           "Find notes by tags",
			ReadOnlyHint:    mcp.ToBoolPtr(true),
			DestructiveHint: mcp.ToBoolPtr(false),
			IdempotentHint:  mcp.ToBoolPtr(true),
			OpenWorldHint:   mcp.ToBoolPtr(false),
		}),
	)
}
