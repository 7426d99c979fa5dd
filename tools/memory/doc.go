// Package memory is the memory half of the memory toolset (spec 004): the
// sixteen memory tools, each a spec file (name, schema, annotations) and a
// handler file over the memory service (package
// github.com/vaultgraph/vaultgraph/memory). Every tool answers in spec
// 004's envelope (package envelope). The contracts the spec leaves open
// are written in docs/MEMORY.md.
package memory
