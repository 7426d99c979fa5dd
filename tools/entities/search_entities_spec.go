package entities

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/tools"
)

// SearchEntitiesName is search_entities' name.
const SearchEntitiesName = "search_entities"

// Limits of search_entities (spec 003).
const (
	DefaultSearchLimit = 20
	MaxSearchLimit     = 50
)

// SearchEntitiesInput is search_entities' arguments.
type SearchEntitiesInput struct {
	ProjectID   string     `json:"projectId"`
	Query       string     `json:"query"`
	EntityTypes []string   `json:"entityTypes"`
	Limit       *tools.Int `json:"limit"`
}

// SearchEntitiesOutput is search_entities' answer.
type SearchEntitiesOutput struct {
	Entities   []EntitySummaryItem `json:"entities"`
	TotalCount int                 `json:"totalCount"`
}

// EntitySummaryItem is an entity in a list.
type EntitySummaryItem struct {
	ID         string  `json:"id"`
	EntityType string  `json:"entityType"`
	Title      string  `json:"title"`
	Slug       string  `json:"slug"`
	Summary    *string `json:"summary"`
	Status     string  `json:"status"`
	CreatedAt  string  `json:"createdAt"`
	UpdatedAt  string  `json:"updatedAt"`
}

// SearchEntitiesSpec is search_entities' contract (spec 003).
func SearchEntitiesSpec() mcp.Tool {
	return newSpec(SearchEntitiesName, "Search entities",
		"Search the entities of one project (notes whose frontmatter declares type guide, concept, project or news): "+
			"query (1-256 characters) is matched case-insensitively as a substring of title, slug and summary; "+
			"entityTypes filters by type; limit (1-50, default 20) caps entities, while totalCount counts every match. "+
			"Ordered by updatedAt, newest first, then id. Errors: PROJECT_NOT_FOUND, VALIDATION_ERROR.")
}
