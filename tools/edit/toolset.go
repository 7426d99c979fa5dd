package edit

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/tools"
)

// Specs returns the contract of every tool of the toolset; the snapshot
// tests walk it.
func Specs() []mcp.Tool { return []mcp.Tool{EditNoteSpec(), RecentChangesSpec()} }

// Tools returns the toolset's tools for d: each only with its dependency.
func Tools(d Deps) []tools.Tool {
	var out []tools.Tool
	if d.Editor != nil {
		out = append(out, tools.Tool{Toolset: tools.ToolsetEdit, Tool: EditNoteSpec(), Handler: EditNoteHandler(d)})
	}
	if d.Changes != nil {
		out = append(out, tools.Tool{Toolset: tools.ToolsetEdit, Tool: RecentChangesSpec(), Handler: RecentChangesHandler(d)})
	}
	return out
}
