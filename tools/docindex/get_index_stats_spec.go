package docindex

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// GetIndexStatsName is the tool's name.
const GetIndexStatsName = "get_index_stats"

// GetIndexStatsInput is get_index_stats' (empty) arguments.
type GetIndexStatsInput struct{}

// GetIndexStatsOutput is get_index_stats' data. total_documents counts
// chunks; namespaces are those of chunks and memories.
type GetIndexStatsOutput struct {
	TotalDocuments  int      `json:"total_documents"`
	UniqueSources   int      `json:"unique_sources"`
	SourceFiles     []string `json:"source_files"`
	Namespaces      []string `json:"namespaces"`
	MemoryCount     int      `json:"memory_count"`
	GoldenRuleCount int      `json:"golden_rule_count"`
}

// GetIndexStatsSpec is get_index_stats' contract (spec 004).
func GetIndexStatsSpec() mcp.Tool {
	return mcp.NewTool(GetIndexStatsName,
		mcp.WithDescription("Retrieve statistics about the current collection: total_documents (chunks), unique_sources and source_files, namespaces (of documents and memories), memory_count and golden_rule_count."),
		mcp.WithSchemaAdditionalProperties(false),
		tools.Annotations("Index statistics", true, false, true),
	)
}
