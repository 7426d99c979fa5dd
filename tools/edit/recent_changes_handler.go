package edit

import (
	"context"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/activity"
	"github.com/vaultgraph/vaultgraph/tools"
)

// RecentChangesHandler answers recent_changes with RecentChangesResponse.
func RecentChangesHandler(d Deps) server.ToolHandlerFunc {
	return tools.Handle(d.handling(), RecentChangesSpec(), func(ctx context.Context, in RecentChangesInput) (any, error) {
		page, err := d.Changes.Recent(ctx, activity.Query{
			Since: deref(in.Since), Limit: tools.IntOr(in.Limit, activity.DefaultLimit), Cursor: deref(in.Cursor),
		})
		if err != nil {
			return nil, err
		}
		out := &RecentChangesResponse{Changes: make([]ChangeResponse, len(page.Changes)), NextCursor: page.NextCursor}
		for i, c := range page.Changes {
			out.Changes[i] = ChangeResponse{
				At: c.At.UTC().Format(time.RFC3339), Kind: string(c.Kind), ID: c.ID, Path: c.Path,
				OldID: c.OldID, OldPath: c.OldPath, Title: c.Title, Summary: activity.Summary(c),
			}
			if c.Actor.ID != "" {
				out.Changes[i].By = &ActorResponse{ID: c.Actor.ID, Email: c.Actor.Email, Name: c.Actor.Name}
			}
		}
		return out, nil
	})
}
