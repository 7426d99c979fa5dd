package entities

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/vaultgraph/vaultgraph/tools"
)

// Specs returns the contract of every tool of the toolset, in spec order;
// the snapshot tests walk it.
func Specs() []mcp.Tool {
	return []mcp.Tool{ListProjectsSpec(), SearchEntitiesSpec(), GetEntitySpec(), GetEntityGraphSpec()}
}

// Tools returns the toolset's tools for d, in spec order.
func Tools(d Deps) []tools.Tool {
	var out []tools.Tool
	add := func(spec mcp.Tool, h server.ToolHandlerFunc) {
		out = append(out, tools.Tool{Toolset: tools.ToolsetEntities, Tool: spec, Handler: h})
	}
	add(ListProjectsSpec(), ListProjectsHandler(d))
	add(SearchEntitiesSpec(), SearchEntitiesHandler(d))
	add(GetEntitySpec(), GetEntityHandler(d))
	add(GetEntityGraphSpec(), GetEntityGraphHandler(d))
	return out
}
