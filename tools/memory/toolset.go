package memory

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/tools"
)

// Specs returns the contract of every memory tool, in spec 004's order;
// the snapshot tests walk it.
func Specs() []mcp.Tool {
	return []mcp.Tool{
		MemoryStoreSpec(), MemoryRecallSpec(), MemoryValidateSpec(), MemoryForgetSpec(), MemoryContextSpec(),
		MemoryApplySpec(), MemoryOutcomeSpec(),
		MemoryRelateSpec(), MemoryEdgeForgetSpec(), MemoryInspectGraphSpec(),
		MemoryCountSpec(), MemoryListSpec(), ValidationHistorySpec(),
		MemoryDetectContradictionsSpec(), MemoryCheckSupersedesSpec(), MemoryAnalyzeHealthSpec(),
	}
}

// needsEmbedder are the tools that cannot work without semantic
// similarity; with embedding.provider none they are not offered. The
// others work, answering an error only for a semantic mode (memory_forget
// by query, memory_context with a query).
var needsEmbedder = map[string]bool{
	MemoryRecallName: true, MemoryDetectContradictionsName: true, MemoryCheckSupersedesName: true,
}

// Tools returns the memory tools for d, in spec order, in toolset
// tools.ToolsetMemory (shared with the document tools of spec 004).
func Tools(d Deps) []tools.Tool {
	var out []tools.Tool
	semantic := d.Memories.HasEmbedder()
	add := func(spec mcp.Tool, h server.ToolHandlerFunc) {
		if !semantic && needsEmbedder[spec.Name] {
			return
		}
		out = append(out, tools.Tool{Toolset: tools.ToolsetMemory, Tool: spec, Handler: h})
	}
	add(MemoryStoreSpec(), MemoryStoreHandler(d))
	add(MemoryRecallSpec(), MemoryRecallHandler(d))
	add(MemoryValidateSpec(), MemoryValidateHandler(d))
	add(MemoryForgetSpec(), MemoryForgetHandler(d))
	add(MemoryContextSpec(), MemoryContextHandler(d))
	add(MemoryApplySpec(), MemoryApplyHandler(d))
	add(MemoryOutcomeSpec(), MemoryOutcomeHandler(d))
	add(MemoryRelateSpec(), MemoryRelateHandler(d))
	add(MemoryEdgeForgetSpec(), MemoryEdgeForgetHandler(d))
	add(MemoryInspectGraphSpec(), MemoryInspectGraphHandler(d))
	add(MemoryCountSpec(), MemoryCountHandler(d))
	add(MemoryListSpec(), MemoryListHandler(d))
	add(ValidationHistorySpec(), ValidationHistoryHandler(d))
	add(MemoryDetectContradictionsSpec(), MemoryDetectContradictionsHandler(d))
	add(MemoryCheckSupersedesSpec(), MemoryCheckSupersedesHandler(d))
	add(MemoryAnalyzeHealthSpec(), MemoryAnalyzeHealthHandler(d))
	return out
}
