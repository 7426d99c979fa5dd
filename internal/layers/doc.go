// Package layers holds no code: its test enforces the import rules of
// docs/ARCHITECTURE.md ("Packages and what they may import") over the real
// dependency graph that `go list -deps` reports, so that a new upward arrow
// (core importing a store, a store importing MCP, a tool importing Cypher)
// fails the build instead of waiting for a reviewer to notice it.
package layers
