package graph

import (
	"context"

	"github.com/vaultgraph/vaultgraph/tools"

	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/core"
)

// GetHubsHandler answers get_hubs with HubResponse[].
func GetHubsHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), GetHubsSpec(), func(ctx context.Context, in GetHubsInput) (any, error) {
		metric := core.HubMetric(tools.Or(in.Metric, string(getHubsDefaultMetric)))
		hubs, err := d.Reader.Hubs(ctx, metric, tools.IntOr(in.Limit, getHubsDefaultLimit))
		if err != nil {
			return nil, err
		}
		out := make([]HubResponse, len(hubs))
		for i, h := range hubs {
			out[i] = HubResponse{ID: h.ID, Title: h.Title, Score: h.Score, Type: kindOf(h.ID)}
		}
		return out, nil
	})
}
