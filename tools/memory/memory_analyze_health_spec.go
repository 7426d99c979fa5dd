package memory

import (
	"github.com/mark3labs/mcp-go/mcp"
	mem "github.com/vaultgraph/vaultgraph/memory"
	"github.com/vaultgraph/vaultgraph/tools"
)

// MemoryAnalyzeHealthName is memory_analyze_health's name.
const MemoryAnalyzeHealthName = "memory_analyze_health"

// MemoryAnalyzeHealthInput is memory_analyze_health's arguments.
type MemoryAnalyzeHealthInput struct {
	Namespace string     `json:"namespace"`
	StaleDays *tools.Int `json:"stale_days"`
	// The original server's switches of each check (default true).
	IncludeContradictions *bool `json:"include_contradictions"`
	IncludeLowConfidence  *bool `json:"include_low_confidence"`
	IncludeStale          *bool `json:"include_stale"`
}

// MemoryAnalyzeHealthSpec is memory_analyze_health's contract (spec 004
// names it; the shape is vaultgraph's, see docs/MEMORY.md).
func MemoryAnalyzeHealthSpec() mcp.Tool {
	return mcp.NewTool(MemoryAnalyzeHealthName,
		mcp.WithDescription("Analyze memory system health: counts by type and namespace, golden rules, average confidence, low-confidence memories "+
			"(below 0.3: more unhelpful than helpful feedback), stale memories (not accessed for stale_days), contradicting pairs (as "+
			"memory_detect_contradictions with its default threshold), near-duplicate pairs (similarity >= 0.8 and no conflict: other numbers or versions are a conflict, never a duplicate), a health_score in [0, 1] "+
			"(the share of memories with no issue) and recommendations. Lists show at most 50 memories or pairs; counts are complete."),
		mcp.WithString("namespace", mcp.Description("Only memories of this namespace")),
		mcp.WithInteger("stale_days", mcp.DefaultNumber(mem.DefaultStaleDays), mcp.Min(1),
			mcp.Description("Days without access after which a memory is stale")),
		mcp.WithBoolean("include_contradictions", mcp.DefaultBool(true), mcp.Description("Check contradictions and near-duplicates")),
		mcp.WithBoolean("include_low_confidence", mcp.DefaultBool(true), mcp.Description("List low-confidence memories")),
		mcp.WithBoolean("include_stale", mcp.DefaultBool(true), mcp.Description("List stale memories")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.Annotations("Analyze memory health", true, false, true),
	)
}
