package memory

import (
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	mem "github.com/vaultgraph/vaultgraph/memory"
	"github.com/vaultgraph/vaultgraph/tools"
)

// MemoryRecallName is memory_recall's name.
const MemoryRecallName = "memory_recall"

// MaxResults bounds n_results of memory_recall and memory_forget.
const MaxResults = 100

// MemoryRecallInput is memory_recall's arguments.
type MemoryRecallInput struct {
	Query    string     `json:"query"`
	NResults *tools.Int `json:"n_results"`
	FiltersView
	// The original server's graph expansion.
	IncludeRelated bool       `json:"include_related"`
	MaxDepth       *tools.Int `json:"max_depth"`
}

// MaxRelatedDepth bounds memory_recall's max_depth.
const MaxRelatedDepth = 3

// filterOptions are the filter arguments shared by memory_recall,
// memory_count and memory_list, with spec 004's descriptions.
func filterOptions() []mcp.ToolOption {
	return []mcp.ToolOption{
		mcp.WithString("namespace", mcp.Description("Filter by namespace")),
		mcp.WithString("memory_type", mcp.Description("Filter by memory type")),
		mcp.WithNumber("min_importance", mcp.Min(0.0), mcp.Max(1.0), mcp.Description("Minimum importance score filter")),
		mcp.WithNumber("min_confidence", mcp.Min(0.0), mcp.Max(1.0), mcp.Description("Minimum confidence score filter")),
	}
}

// MemoryRecallSpec is memory_recall's contract (spec 004).
func MemoryRecallSpec() mcp.Tool {
	opts := []mcp.ToolOption{
		mcp.WithDescription(fmt.Sprintf("Recall memories using semantic search: the memories most relevant to query, by meaning and by the query's words "+
			"(score in [0, 1]: %.1f × cosine similarity + %.1f × keyword score), optionally filtered by namespace, memory_type "+
			"(preference, decision, pattern, session, fact, golden_rule), min_importance and min_confidence. Recall updates each memory's last access.",
			mem.VectorWeight, 1-mem.VectorWeight)),
		mcp.WithString("query", mcp.Required(), mcp.Description("Search query text")),
		mcp.WithInteger("n_results", mcp.DefaultNumber(5), mcp.Min(1), mcp.Max(MaxResults), mcp.Description("Maximum number of results")),
	}
	opts = append(opts, filterOptions()...)
	opts = append(opts,
		mcp.WithBoolean("include_related", mcp.DefaultBool(false),
			mcp.Description("Also answer expanded: the memories related to the recalled ones (memory_relate), within max_depth relationships")),
		mcp.WithInteger("max_depth", mcp.DefaultNumber(1), mcp.Min(1), mcp.Max(MaxRelatedDepth),
			mcp.Description("With include_related: how many relationships away from a recalled memory")),
		mcp.WithSchemaAdditionalProperties(false), tools.Annotations("Recall memories", false, false, false))
	return mcp.NewTool(MemoryRecallName, opts...)
}
