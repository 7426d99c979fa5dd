// Package core holds vaultgraph's domain: what a note graph is (Note, Link,
// Hub, ...), what a store must do (the Store interfaces), the domain errors the
// tools map to protocol error codes, and the services the tools call.
//
// core imports nothing of ours and no driver, MCP or config library: stores,
// the vault and the tool packages all depend on it, never the other way round.
package core
