package entities

import (
	"context"
	"errors"

	"github.com/mark3labs/mcp-go/server"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/tools"
)

// GetEntityGraphHandler answers get_entity_graph.
func GetEntityGraphHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), GetEntityGraphSpec(), func(ctx context.Context, in GetEntityGraphInput) (any, error) {
		p, err := d.project(in.ProjectID)
		if err != nil {
			return nil, err
		}
		id, err := entityID(in.EntityID)
		if err != nil {
			return nil, err
		}
		q := core.EntityGraphQuery{Depth: DefaultGraphDepth, MaxNodes: MaxGraphNodes, MaxEdges: MaxGraphEdges}
		if in.Depth != nil {
			q.Depth = int(*in.Depth)
		}
		for _, t := range in.RelationshipTypes {
			q.Types = append(q.Types, core.RelationType(t))
		}
		g, err := d.Entities.EntityGraph(ctx, p.Key, id, q)
		if errors.Is(err, core.ErrNotFound) {
			return nil, entityNotFound(in.EntityID)
		}
		if err != nil {
			return nil, err
		}
		out := GetEntityGraphOutput{Nodes: make([]GraphNode, len(g.Nodes)), Edges: make([]GraphEdge, len(g.Edges))}
		for i, n := range g.Nodes {
			out.Nodes[i] = GraphNode{
				ID: n.ID, EntityType: string(n.Type), Title: n.Title, Slug: n.Slug,
				Summary: optString(n.Summary), Status: string(n.Status), Depth: n.Depth,
			}
		}
		for i, e := range g.Edges {
			out.Edges[i] = GraphEdge{FromEntityID: e.From, ToEntityID: e.To, RelationType: string(e.Type), Notes: optString(e.Notes)}
		}
		return out, nil
	})
}
