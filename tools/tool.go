package tools

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/vaultgraph/vaultgraph/internal/toolset"
)

// Toolset IDs, as written in configuration (`toolsets: [graph, memory]`),
// declared in internal/toolset.
const (
	ToolsetGraph    = toolset.Graph    // spec 000/001: the note graph
	ToolsetKB       = toolset.KB       // spec 002: knowledge bases
	ToolsetEdit     = toolset.Edit     // issue 30: section edits and recent changes
	ToolsetEntities = toolset.Entities // spec 003: typed entities
	ToolsetMemory   = toolset.Memory   // spec 004: documents and memories
)

// ToolsetInfo describes a toolset for configuration help and docs.
type ToolsetInfo = toolset.Info

// Toolsets lists every toolset vaultgraph knows, in a stable order, with
// the defaults (internal/toolset.List).
var Toolsets = toolset.List

// KnownToolset reports whether id names a toolset in Toolsets.
func KnownToolset(id string) bool { return toolset.Known(id) }

// DefaultToolsets returns the IDs of the toolsets enabled by default.
func DefaultToolsets() []string { return toolset.Defaults() }

// Tool is one MCP tool with the toolset it belongs to.
type Tool struct {
	Toolset string
	Tool    mcp.Tool
	Handler server.ToolHandlerFunc
}

// ReadOnly reports whether the tool declares that it does not modify its
// environment. This annotation is the only source of read-only-ness: the
// read-only filter and the read-only HTTP tokens both ask it, so a tool
// cannot be read-only in one place and writing in another. An unset hint
// counts as writing.
func (t Tool) ReadOnly() bool { return IsReadOnly(t.Tool) }

// IsReadOnly reports whether tool's ReadOnlyHint annotation is set and true.
func IsReadOnly(tool mcp.Tool) bool {
	h := tool.Annotations.ReadOnlyHint
	return h != nil && *h
}

// ServerTools converts tools for server.MCPServer.AddTools, as tools/list
// publishes them. Each tool gets a top-level title, its annotations' title
// unless it has one of its own: clients that show a tool's name read the
// top-level field first (MCP 2025-06-18), and the specs' annotations carry
// the title already. The published annotations leave out what only
// repeats (issue 47, the tools/list budget; PublishedAnnotations).
func ServerTools(ts []Tool) []server.ServerTool {
	out := make([]server.ServerTool, len(ts))
	for i, t := range ts {
		tool := t.Tool
		if tool.Title == "" {
			tool.Title = tool.Annotations.Title
		}
		tool.Annotations = PublishedAnnotations(tool)
		out[i] = server.ServerTool{Tool: tool, Handler: t.Handler}
	}
	return out
}

// PublishedAnnotations are tool's annotations as tools/list carries them:
// without a title equal to the top-level one, and without a hint that says
// what MCP's default for it says already (readOnlyHint false,
// destructiveHint true, idempotentHint false; openWorldHint's default,
// true, is never ours) or that MCP defines only for tools that write
// (destructiveHint and idempotentHint of a read-only tool: "meaningful
// only when readOnlyHint == false"). A client reading them with MCP's
// defaults gets every hint as the tool declares it; the tools themselves
// keep them all (the inventory test checks each is set).
func PublishedAnnotations(tool mcp.Tool) mcp.ToolAnnotation {
	a := tool.Annotations
	if a.Title == tool.Title {
		a.Title = ""
	}
	is := func(h *bool, v bool) bool { return h != nil && *h == v }
	if IsReadOnly(tool) {
		a.DestructiveHint, a.IdempotentHint = nil, nil
		return a
	}
	if is(a.ReadOnlyHint, false) {
		a.ReadOnlyHint = nil
	}
	if is(a.DestructiveHint, true) {
		a.DestructiveHint = nil
	}
	if is(a.IdempotentHint, false) {
		a.IdempotentHint = nil
	}
	return a
}

// Annotations writes out every hint of a tool that acts only on the vault
// and the store (a closed world). Every hint is set explicitly: mcp-go's
// defaults would call a tool destructive and open-world.
func Annotations(title string, readOnly, destructive, idempotent bool) mcp.ToolOption {
	return mcp.WithToolAnnotation(mcp.ToolAnnotation{
		Title:           title,
		ReadOnlyHint:    mcp.ToBoolPtr(readOnly),
		DestructiveHint: mcp.ToBoolPtr(destructive),
		IdempotentHint:  mcp.ToBoolPtr(idempotent),
		OpenWorldHint:   mcp.ToBoolPtr(false),
	})
}
