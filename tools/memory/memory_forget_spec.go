package memory

import (
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	mem "github.com/vaultgraph/vaultgraph/memory"
	"github.com/vaultgraph/vaultgraph/tools"
)

// MemoryForgetName is memory_forget's name.
const MemoryForgetName = "memory_forget"

// MemoryForgetInput is memory_forget's arguments.
type MemoryForgetInput struct {
	MemoryID   string     `json:"memory_id"`
	Query      string     `json:"query"`
	InputValue string     `json:"input_value"`
	Namespace  string     `json:"namespace"`
	NResults   *tools.Int `json:"n_results"`
	Force      bool       `json:"force"`
	DryRun     bool       `json:"dry_run"`
}

// MemoryForgetSpec is memory_forget's contract (spec 004).
func MemoryForgetSpec() mcp.Tool {
	return mcp.NewTool(MemoryForgetName,
		mcp.WithDescription("Delete memories by ID or semantic search. Give memory_id, or query (deletes up to n_results memories that match it: "+
			fmt.Sprintf("relevance at least %.2f, so a query that matches nothing deletes nothing), ", mem.MatchFloor)+
			"or input_value (anything starting with mem_ is an ID, anything else a query). "+
			"A mistyped ID deletes nothing: it answers Memory not found. "+
			"Set dry_run to see what would be deleted (would_delete_ids, and the matches with their scores) without deleting. "+
			"Golden rules (type golden_rule or confidence >= 0.9) are skipped and listed in protected_ids unless force is true. "+
			"A memory's relations and validation history go with it."),
		mcp.WithString("memory_id", mcp.Description("Specific memory ID to delete")),
		mcp.WithString("query", mcp.Description("Search query to find memories to delete")),
		mcp.WithString("input_value", mcp.Description("Smart parameter - auto-detects if ID or query")),
		mcp.WithString("namespace", mcp.Description("Filter deletion to specific namespace")),
		mcp.WithInteger("n_results", mcp.DefaultNumber(5), mcp.Min(1), mcp.Max(MaxResults),
			mcp.Description("Number of search results to delete in query mode")),
		mcp.WithBoolean("force", mcp.DefaultBool(false), mcp.Description("If true, allow deletion of golden rules")),
		mcp.WithBoolean("dry_run", mcp.DefaultBool(false), mcp.Description("If true, delete nothing: answer what would be deleted")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.Annotations("Forget memories", false, true, false),
	)
}
