package entities

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/tools"
)

// GetEntityGraphName is get_entity_graph's name.
const GetEntityGraphName = "get_entity_graph"

// Limits of get_entity_graph (spec 003).
const (
	DefaultGraphDepth = 1
	MaxGraphNodes     = 100
	MaxGraphEdges     = 200
)

// GetEntityGraphInput is get_entity_graph's arguments.
type GetEntityGraphInput struct {
	ProjectID         string     `json:"projectId"`
	EntityID          string     `json:"entityId"`
	Depth             *tools.Int `json:"depth"`
	RelationshipTypes []string   `json:"relationshipTypes"`
}

// GetEntityGraphOutput is get_entity_graph's answer.
type GetEntityGraphOutput struct {
	Nodes []GraphNode `json:"nodes"`
	Edges []GraphEdge `json:"edges"`
}

// GraphNode is an entity of the graph with its distance from the root.
type GraphNode struct {
	ID         string  `json:"id"`
	EntityType string  `json:"entityType"`
	Title      string  `json:"title"`
	Slug       string  `json:"slug"`
	Summary    *string `json:"summary"`
	Status     string  `json:"status"`
	Depth      int     `json:"depth"`
}

// GraphEdge is a relationship between two entities of the graph.
type GraphEdge struct {
	FromEntityID string  `json:"fromEntityId"`
	ToEntityID   string  `json:"toEntityId"`
	RelationType string  `json:"relationType"`
	Notes        *string `json:"notes"`
}

// GetEntityGraphSpec is get_entity_graph's contract (spec 003).
func GetEntityGraphSpec() mcp.Tool {
	return newSpec(GetEntityGraphName, "Get an entity's relationship graph",
		"An entity and the entities related to it, in either direction, up to depth 1 or 2 (default 1), following only "+
			"relationshipTypes when given (omitted or empty: every type). Only relationships between entities of the project appear. "+
			"Nodes (the entity itself at depth 0) are ordered by depth, then title case-insensitively, at most 100; "+
			"edges by fromEntityId, then toEntityId, at most 200. Errors: PROJECT_NOT_FOUND, VALIDATION_ERROR, ENTITY_NOT_FOUND.")
}
