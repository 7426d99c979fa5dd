package entities

import (
	"context"
	"errors"

	"github.com/mark3labs/mcp-go/server"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/tools"
)

// GetEntityHandler answers get_entity.
func GetEntityHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), GetEntitySpec(), func(ctx context.Context, in GetEntityInput) (any, error) {
		p, err := d.project(in.ProjectID)
		if err != nil {
			return nil, err
		}
		id, err := entityID(in.EntityID)
		if err != nil {
			return nil, err
		}
		e, err := d.Entities.GetEntity(ctx, p.Key, id)
		if errors.Is(err, core.ErrNotFound) {
			return nil, entityNotFound(in.EntityID)
		}
		if err != nil {
			return nil, err
		}
		comparisons := e.ComparisonTargets
		if comparisons == nil {
			comparisons = []string{}
		}
		return GetEntityOutput{Entity: EntityDetail{
			ID: e.ID, EntityType: string(e.Type), Title: e.Title, Slug: e.Slug, Summary: optString(e.Summary),
			Difficulty: optString(e.Difficulty), ConceptKind: optString(e.ConceptKind), ComparisonTargets: comparisons,
			RepoURL: optString(e.RepoURL), RepoDefaultBranch: optString(e.RepoDefaultBranch), License: optString(e.License),
			Status: string(e.Status), CanonicalURL: optString(e.CanonicalURL), ContentRef: optString(e.ContentRef),
			PublishedAt: optTimestamp(e.PublishedAt), ArchivedAt: optTimestamp(e.ArchivedAt),
			CreatedAt: timestamp(e.CreatedAt), UpdatedAt: timestamp(e.UpdatedAt),
			RelationshipCounts: RelationshipCounts{Outgoing: e.Outgoing, Incoming: e.Incoming},
		}}, nil
	})
}
