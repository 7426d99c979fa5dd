package graph

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/tools"
)

// Specs returns the contract of every tool of the toolset, search
// included, in spec order; the snapshot tests walk it.
func Specs() []mcp.Tool {
	return []mcp.Tool{
		SearchSpec(), GetNodeSpec(), GetNeighborsSpec(), FindPathSpec(), GetHubsSpec(),
		SearchByTagsSpec(), RandomNodeSpec(), CreateNodeSpec(), UpdateNodeSpec(), DeleteNodeSpec(),
	}
}

// Tools returns the toolset's tools for d: search only with a Searcher
// (spec 001), the write tools only with a Writer. Every handler passes
// through the one _warnings middleware.
func Tools(d Deps) []tools.Tool {
	var out []tools.Tool
	add := func(spec mcp.Tool, h server.ToolHandlerFunc) {
		h = withWarnings(h)
		out = append(out, tools.Tool{Toolset: tools.ToolsetGraph, Tool: spec, Handler: h})
	}
	if d.Searcher != nil {
		add(SearchSpec(), SearchHandler(d))
	}
	add(GetNodeSpec(), GetNodeHandler(d))
	add(GetNeighborsSpec(), GetNeighborsHandler(d))
	add(FindPathSpec(), FindPathHandler(d))
	add(GetHubsSpec(), GetHubsHandler(d))
	add(SearchByTagsSpec(), SearchByTagsHandler(d))
	add(RandomNodeSpec(), RandomNodeHandler(d))
	if d.Writer != nil {
		add(CreateNodeSpec(), CreateNodeHandler(d))
		add(UpdateNodeSpec(), UpdateNodeHandler(d))
		add(DeleteNodeSpec(), DeleteNodeHandler(d))
	}
	return out
}
