// Package server assembles vaultgraph's MCP server and its transports:
// New builds the MCP server from the selected tools; ServeStdio serves it
// on a process's stdin/stdout; HTTPServer serves it as streamable HTTP at
// /mcp with bearer tokens and /healthz; RunShim is the stdio-to-HTTP
// bridge a desktop client spawns to reach a shared server; RunRelay is the
// stdio front of a process whose embedded store another process owns
// (ServeStream serves each such connection in the owner), and Forward the
// MCP server of such a process's HTTP front (its calls relayed to the
// owner); FirstSync is how tools answer while the first sync of the vault
// runs.
//
// The stdio transport is vaultgraph's own loop around mcp-go's
// MCPServer.HandleMessage (stdio.go): mcp-go's StdioServer decoded every
// line about six times and encoded every tool result three times, which was
// most of a call on the embedded store. A tool result in the shape every
// vaultgraph tool builds is written in one pass (encode.go); other messages
// go through encoding/json.
//
// Nothing here writes to stdout except the stdio transport, the relay and the shim,
// which write JSON-RPC only; logs go to the *slog.Logger the caller passes.
package server
