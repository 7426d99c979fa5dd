// Package server assembles vaultgraph's MCP server and its transports:
// New builds the MCP server from the selected tools; ServeStdio serves it
// on a process's stdin/stdout; HTTPServer serves it as streamable HTTP at
// /mcp with bearer tokens and /healthz; RunShim is the stdio-to-HTTP
// bridge a desktop client spawns to reach a shared server.
//
// Nothing here writes to stdout except the stdio transport and the shim,
// which write JSON-RPC only; logs go to the *slog.Logger the caller passes.
package server
