package entities

import "github.com/mark3labs/mcp-go/mcp"

// ListProjectsName is list_projects' name.
const ListProjectsName = "list_projects"

// ListProjectsInput is list_projects' arguments: none.
type ListProjectsInput struct{}

// ListProjectsOutput is list_projects' answer.
type ListProjectsOutput struct {
	Projects []ProjectItem `json:"projects"`
}

// ProjectItem is one project (a vault served here).
type ProjectItem struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Slug        string  `json:"slug"`
	Description *string `json:"description"`
	CreatedAt   string  `json:"createdAt"`
	UpdatedAt   string  `json:"updatedAt"`
}

// ListProjectsSpec is list_projects' contract (spec 003).
func ListProjectsSpec() mcp.Tool {
	return newSpec(ListProjectsName, "List projects",
		"Enumerate the projects this server serves (a project is a vault): id (UUID), name, slug, description, createdAt, updatedAt; "+
			"ordered by name, case-insensitively; at most 100. Start here: the other entity tools need a projectId.")
}
