package entities

import (
	"context"

	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/tools"
)

// ListProjectsHandler answers list_projects.
func ListProjectsHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), ListProjectsSpec(), func(ctx context.Context, _ ListProjectsInput) (any, error) {
		list, err := d.Projects.List(ctx)
		if err != nil {
			return nil, err
		}
		out := ListProjectsOutput{Projects: make([]ProjectItem, len(list))}
		for i, p := range list {
			out.Projects[i] = ProjectItem{
				ID: p.ID, Name: p.Name, Slug: p.Slug, Description: optString(p.Description),
				CreatedAt: timestamp(p.CreatedAt), UpdatedAt: timestamp(p.UpdatedAt),
			}
		}
		return out, nil
	})
}
