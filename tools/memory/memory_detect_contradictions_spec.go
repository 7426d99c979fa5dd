package memory

import (
	"github.com/mark3labs/mcp-go/mcp"
	mem "github.com/vaultgraph/vaultgraph/memory"
	"github.com/vaultgraph/vaultgraph/tools"
)

// MemoryDetectContradictionsName is memory_detect_contradictions' name.
const MemoryDetectContradictionsName = "memory_detect_contradictions"

// MemoryDetectContradictionsInput is memory_detect_contradictions'
// arguments.
type MemoryDetectContradictionsInput struct {
	MemoryID            string   `json:"memory_id"`
	Namespace           string   `json:"namespace"`
	SimilarityThreshold *float64 `json:"similarity_threshold"`
	CreateEdges         bool     `json:"create_edges"` // the original server's; only false is served
}

// MemoryDetectContradictionsSpec is memory_detect_contradictions'
// contract (spec 004 names it; the shape is vaultgraph's, see
// docs/MEMORY.md).
func MemoryDetectContradictionsSpec() mcp.Tool {
	return mcp.NewTool(MemoryDetectContradictionsName,
		mcp.WithDescription("Find contradicting memories: pairs whose cosine similarity (0-1) is at least similarity_threshold (they speak of the same subject) "+
			"and whose texts cannot both hold: one negates what the other states, they use opposite terms about the same subject (enable/disable, light/dark, tabs/spaces), "+
			"they give other values (PostgreSQL 15 / 16), or one says it changed the other (switched, moved, now, instead); "+
			"plus pairs related by contradicts with memory_relate. With memory_id, only pairs containing that memory. "+
			"Compares up to 2000 most recently updated memories. Nothing is changed."),
		mcp.WithString("memory_id", mcp.Description("Only contradictions of this memory")),
		mcp.WithString("namespace", mcp.Description("Only memories of this namespace")),
		mcp.WithNumber("similarity_threshold", mcp.DefaultNumber(mem.DefaultContradictionThreshold), mcp.Min(0.0), mcp.Max(1.0),
			mcp.Description("Minimum cosine similarity for two memories to be compared, 0.0-1.0")),
		mcp.WithBoolean("create_edges", mcp.DefaultBool(false),
			mcp.Description("Must be false: this tool changes nothing; record a contradiction with memory_relate (contradicts)")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.Annotations("Detect contradicting memories", true, false, true),
	)
}
