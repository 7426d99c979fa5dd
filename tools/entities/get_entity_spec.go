package entities

import "github.com/mark3labs/mcp-go/mcp"

// GetEntityName is get_entity's name.
const GetEntityName = "get_entity"

// GetEntityInput is get_entity's arguments.
type GetEntityInput struct {
	ProjectID string `json:"projectId"`
	EntityID  string `json:"entityId"`
}

// GetEntityOutput is get_entity's answer.
type GetEntityOutput struct {
	Entity EntityDetail `json:"entity"`
}

// EntityDetail is an entity with every field; absent values are null.
type EntityDetail struct {
	ID                 string             `json:"id"`
	EntityType         string             `json:"entityType"`
	Title              string             `json:"title"`
	Slug               string             `json:"slug"`
	Summary            *string            `json:"summary"`
	Difficulty         *string            `json:"difficulty"`
	ConceptKind        *string            `json:"conceptKind"`
	ComparisonTargets  []string           `json:"comparisonTargets"`
	RepoURL            *string            `json:"repoUrl"`
	RepoDefaultBranch  *string            `json:"repoDefaultBranch"`
	License            *string            `json:"license"`
	Status             string             `json:"status"`
	CanonicalURL       *string            `json:"canonicalUrl"`
	ContentRef         *string            `json:"contentRef"`
	PublishedAt        *string            `json:"publishedAt"`
	ArchivedAt         *string            `json:"archivedAt"`
	CreatedAt          string             `json:"createdAt"`
	UpdatedAt          string             `json:"updatedAt"`
	RelationshipCounts RelationshipCounts `json:"relationshipCounts"`
}

// RelationshipCounts counts an entity's distinct relationships with other
// entities of its project, by (type, other entity).
type RelationshipCounts struct {
	Outgoing int `json:"outgoing"`
	Incoming int `json:"incoming"`
}

// GetEntitySpec is get_entity's contract (spec 003).
func GetEntitySpec() mcp.Tool {
	return newSpec(GetEntityName, "Get an entity",
		"Complete details of one entity of a project: fields from the note's frontmatter, comparisonTargets as entity ids, "+
			"contentRef (the note's vault path) and relationshipCounts (outgoing, incoming). "+
			"An entity of another project is ENTITY_NOT_FOUND. Errors: PROJECT_NOT_FOUND, VALIDATION_ERROR, ENTITY_NOT_FOUND.")
}
