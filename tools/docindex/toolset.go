package docindex

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/tools"
)

// Specs returns the contract of every document tool, in spec order; the
// snapshot tests walk it.
func Specs() []mcp.Tool {
	return []mcp.Tool{
		IndexFileSpec(), IndexDirectorySpec(), SearchSpec(), SearchWithFiltersSpec(), SearchWithBudgetSpec(),
		DeleteChunksSpec(), DeleteFileSpec(), ClearIndexSpec(), GetIndexStatsSpec(),
	}
}

// Tools returns the document tools of the memory toolset for d.
func Tools(d Deps) []tools.Tool {
	return []tools.Tool{
		{Toolset: tools.ToolsetMemory, Tool: IndexFileSpec(), Handler: IndexFileHandler(d)},
		{Toolset: tools.ToolsetMemory, Tool: IndexDirectorySpec(), Handler: IndexDirectoryHandler(d)},
		{Toolset: tools.ToolsetMemory, Tool: SearchSpec(), Handler: SearchHandler(d)},
		{Toolset: tools.ToolsetMemory, Tool: SearchWithFiltersSpec(), Handler: SearchWithFiltersHandler(d)},
		{Toolset: tools.ToolsetMemory, Tool: SearchWithBudgetSpec(), Handler: SearchWithBudgetHandler(d)},
		{Toolset: tools.ToolsetMemory, Tool: DeleteChunksSpec(), Handler: DeleteChunksHandler(d)},
		{Toolset: tools.ToolsetMemory, Tool: DeleteFileSpec(), Handler: DeleteFileHandler(d)},
		{Toolset: tools.ToolsetMemory, Tool: ClearIndexSpec(), Handler: ClearIndexHandler(d)},
		{Toolset: tools.ToolsetMemory, Tool: GetIndexStatsSpec(), Handler: GetIndexStatsHandler(d)},
	}
}
