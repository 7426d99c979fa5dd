package memory

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// MemoryCountName is memory_count's name.
const MemoryCountName = "memory_count"

// MemoryCountInput is memory_count's arguments.
type MemoryCountInput struct {
	FiltersView
}

// MemoryCountSpec is memory_count's contract (spec 004 names it; the shape
// is vaultgraph's, see docs/MEMORY.md).
func MemoryCountSpec() mcp.Tool {
	opts := []mcp.ToolOption{mcp.WithDescription("Count memories with filters: namespace, memory_type (preference, decision, pattern, session, fact, golden_rule), " +
		"min_importance and min_confidence, as memory_recall. No filter counts every memory.")}
	opts = append(opts, filterOptions()...)
	opts = append(opts, mcp.WithSchemaAdditionalProperties(false), tools.Annotations("Count memories", true, false, true))
	return mcp.NewTool(MemoryCountName, opts...)
}
