// Package jsonrpc is the JSON-RPC 2.0 that vaultgraph's line transports
// share (the stdio server, the relay to a vault's owner, the shim to a
// remote server; server/http.go reuses its errors): newline-delimited
// framing with a size limit per message, what kind a message is (request,
// notification, response, batch), ids, and error responses with their
// codes. It knows nothing of MCP: the MCP checks every entry point makes
// before a message is handled live in package server (strictRefusal).
//
// The choices where JSON-RPC 2.0 and MCP leave room (docs/DECISIONS.md,
// "One JSON-RPC core"):
//   - "id": null on a message with a method is an invalid request (-32600,
//     answered with a null id): JSON-RPC 2.0 makes it a request, not a
//     notification, and MCP forbids null request ids;
//   - a batch (a JSON array) is an invalid request (-32600, null id): MCP
//     removed JSON-RPC batching in 2025-06-18, and a batch is valid JSON,
//     so it is no parse error;
//   - JSON that is not an object is an invalid request (-32600, null id),
//     as in JSON-RPC 2.0's examples;
//   - a line over the limit is skipped without being kept and answered
//     with -32600 for the id read from its first 64 KiB (null when none).
package jsonrpc
