package graph

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/tools"
)

// Name and defaults of get_hubs.
const (
	GetHubsName          = "get_hubs"
	getHubsDefaultMetric = core.MetricInDegree
	getHubsDefaultLimit  = 10
)

// GetHubsInput is get_hubs' arguments.
type GetHubsInput struct {
	Metric *string    `json:"metric"`
	Limit  *tools.Int `json:"limit"`
}

// GetHubsSpec is get_hubs' contract (spec 000). The metric enum adds
// "pagerank", which spec 000 defers and spec 001 lists.
func GetHubsSpec() mcp.Tool {
	return mcp.NewTool(GetHubsName,
		mcp.WithDescription("Most linked (in_degree, out_degree) or central (pagerank, sums to 1) notes, best first, ties by ID."),
		mcp.WithString("metric",
			mcp.Enum(string(core.MetricInDegree), string(core.MetricOutDegree), string(core.MetricPageRank)),
			mcp.DefaultString(string(getHubsDefaultMetric)),
			mcp.Description("How to rank")),
		mcp.WithInteger("limit",
			mcp.Min(1), mcp.Max(core.MaxHubLimit), mcp.DefaultNumber(getHubsDefaultLimit),
			mcp.Description("Maximum notes")),
		mcp.WithSchemaAdditionalProperties(false),
		mcp.WithToolAnnotation(mcp.ToolAnnotation{
			Title:           "Get hub notes",
			ReadOnlyHint:    mcp.ToBoolPtr(true),
			DestructiveHint: mcp.ToBoolPtr(false),
			IdempotentHint:  mcp.ToBoolPtr(true),
			OpenWorldHint:   mcp.ToBoolPtr(false),
		}),
	)
}
