package edit

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/activity"
	"github.com/vaultgraph/vaultgraph/tools"
)

// RecentChangesName is recent_changes' name.
const RecentChangesName = "recent_changes"

// RecentChangesInput is recent_changes' arguments.
type RecentChangesInput struct {
	Since  *string    `json:"since"`
	Limit  *tools.Int `json:"limit"`
	Cursor *string    `json:"cursor"`
}

// RecentChangesSpec is recent_changes' contract. It publishes no
// outputSchema: the one field a model passes on, next_cursor, is named in
// the description, and the schema would cost more bytes of every
// tools/list (425) than the tool's arguments (docs/DECISIONS.md).
func RecentChangesSpec() mcp.Tool {
	return mcp.NewTool(RecentChangesName,
		mcp.WithDescription("Notes created, modified, renamed or deleted (by tools or any editor), newest first, with a size-change summary. "+
			"Kept 30 days, up to 100,000. More: pass next_cursor as cursor."),
		mcp.WithString("since",
			mcp.Description("RFC 3339 time, date, or 90m, 24h, 7d, 2w back")),
		mcp.WithInteger("limit",
			mcp.Min(1), mcp.Max(activity.MaxLimit), mcp.DefaultNumber(activity.DefaultLimit),
			mcp.Description("Changes per page")),
		mcp.WithString("cursor",
			mcp.Description("next_cursor of the previous page")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.Annotations("Recent changes to notes", true, false, true),
	)
}
