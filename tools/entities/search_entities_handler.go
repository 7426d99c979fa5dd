package entities

import (
	"context"

	"github.com/mark3labs/mcp-go/server"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/tools"
)

// SearchEntitiesHandler answers search_entities.
func SearchEntitiesHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), SearchEntitiesSpec(), func(ctx context.Context, in SearchEntitiesInput) (any, error) {
		p, err := d.project(in.ProjectID)
		if err != nil {
			return nil, err
		}
		q := core.EntityQuery{Text: in.Query, Limit: DefaultSearchLimit}
		if in.Limit != nil {
			q.Limit = int(*in.Limit)
		}
		for _, t := range in.EntityTypes {
			q.Types = append(q.Types, core.EntityType(t))
		}
		res, err := d.Entities.SearchEntities(ctx, p.Key, q)
		if err != nil {
			return nil, err
		}
		out := SearchEntitiesOutput{Entities: make([]EntitySummaryItem, 0, len(res.Entities)), TotalCount: res.Total}
		for _, e := range res.Entities {
			out.Entities = append(out.Entities, summaryItem(e))
		}
		return out, nil
	})
}

func summaryItem(e core.EntitySummary) EntitySummaryItem {
	return EntitySummaryItem{
		ID: e.ID, EntityType: string(e.Type), Title: e.Title, Slug: e.Slug, Summary: optString(e.Summary),
		Status: string(e.Status), CreatedAt: timestamp(e.CreatedAt), UpdatedAt: timestamp(e.UpdatedAt),
	}
}
