// Package tools is the inventory of vaultgraph's MCP tools: every tool with
// the toolset it belongs to, and the filters (enabled toolsets, read-only
// mode, renames) that decide which of them a server registers. Each toolset
// lives in a sub-package (tools/graph, ...) that returns its []Tool; this
// package imports none of them, so the toolsets can use its types.
//
// It also holds what every toolset shares: Arguments (the published input
// schema checked and decoded, unknown and repeated keys refused),
// EncodeJSON, and Progress, which a long tool uses to report its progress
// to a client that asked for it:
//
//	func (d Deps) indexDirectory(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
//		p := tools.Progress(ctx, req) // nil (and silent) without _meta.progressToken
//		for i, f := range files {
//			p.Report(float64(i), float64(len(files)), f)
//			...
//		}
//		p.Report(float64(len(files)), float64(len(files)), "done")
//		...
//	}
package tools
