package memory

import (
	"github.com/mark3labs/mcp-go/mcp"
	mem "github.com/vaultgraph/vaultgraph/memory"
	"github.com/vaultgraph/vaultgraph/tools"
)

// MemoryCheckSupersedesName is memory_check_supersedes' name.
const MemoryCheckSupersedesName = "memory_check_supersedes"

// MemoryCheckSupersedesInput is memory_check_supersedes' arguments.
type MemoryCheckSupersedesInput struct {
	MemoryID            string   `json:"memory_id"`
	TargetID            string   `json:"target_id"`
	SimilarityThreshold *float64 `json:"similarity_threshold"`
	CreateEdge          bool     `json:"create_edge"` // the original server's; only false is served
}

// MemoryCheckSupersedesSpec is memory_check_supersedes' contract (spec 004
// names it; the shape is vaultgraph's, see docs/MEMORY.md).
func MemoryCheckSupersedesSpec() mcp.Tool {
	return mcp.NewTool(MemoryCheckSupersedesName,
		mcp.WithDescription("Check if a memory supersedes another: it does when it was created later, has the same memory_type (a golden rule matches any) "+
			"and namespace, its cosine similarity (0-1) is at least similarity_threshold, and its words state something the other does not "+
			"(another value or version, the opposite) or say it changed (switched, moved, now, instead): a restatement supersedes nothing. With target_id, checks that one memory; without, "+
			"lists the memories of its namespace at least that similar. Nothing is changed: record a result with memory_relate (supersedes)."),
		mcp.WithString("memory_id", mcp.Required(), mcp.Description("ID of the newer memory")),
		mcp.WithString("target_id", mcp.Description("ID of the older memory to check; omit to check the whole namespace")),
		mcp.WithNumber("similarity_threshold", mcp.DefaultNumber(mem.DefaultSupersedeThreshold), mcp.Min(0.0), mcp.Max(1.0),
			mcp.Description("Minimum cosine similarity, 0.0-1.0")),
		mcp.WithBoolean("create_edge", mcp.DefaultBool(false),
			mcp.Description("Must be false: this tool changes nothing; record a supersession with memory_relate (supersedes)")),
		mcp.WithSchemaAdditionalProperties(false),
		tools.Annotations("Check whether a memory supersedes another", true, false, true),
	)
}
