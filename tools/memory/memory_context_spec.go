package memory

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// MemoryContextName is memory_context's name.
const MemoryContextName = "memory_context"

// DefaultTokenBudget is memory_context's default token_budget.
const DefaultTokenBudget = 4000

// MemoryContextInput is memory_context's arguments.
type MemoryContextInput struct {
	Query       string     `json:"query"`
	Namespace   string     `json:"namespace"`
	TokenBudget *tools.Int `json:"token_budget"`
}

// MemoryContextSpec is memory_context's contract (spec 004).
func MemoryContextSpec() mcp.Tool {
	return mcp.NewTool(MemoryContextName,
		mcp.WithDescription("Fetch relevant memories and format them as markdown for context injection: \"## Relevant Memories\", then "+
			"\"### Golden Rules (High Confidence)\" and one section per type (Preferences, Decisions, Patterns, Facts, Sessions), each line "+
			"\"- content [confidence: 0.7]\". With query, the most similar memories; without, the most confident and important. "+
			"With namespace, that namespace's memories and the global ones. The block stays within token_budget (about 4 characters per token)."),
		mcp.WithString("query", mcp.Description("Optional search query to filter relevant memories")),
		mcp.WithString("namespace", mcp.Description("Project namespace")),
		mcp.WithInteger("token_budget", mcp.DefaultNumber(DefaultTokenBudget), mcp.Min(1), mcp.Description("Maximum tokens for context")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.Annotations("Build memory context", true, false, true),
	)
}
