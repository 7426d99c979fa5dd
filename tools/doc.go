// Package tools is the inventory of vaultgraph's MCP tools: every tool with
// the toolset it belongs to, and the filters (enabled toolsets, read-only
// mode, renames) that decide which of them a server registers. Each toolset
// lives in a sub-package (tools/graph, ...) that returns its []Tool; this
// package imports none of them, so the toolsets can use its types.
package tools
