// Package e2e drives the real vaultgraph binary end to end: TestMain builds
// it once (with -race when the tests run with -race), and the tests run
// "vaultgraph serve" over stdio and streamable HTTP, "vaultgraph shim",
// "vaultgraph call" and "vaultgraph sync" on a temporary copy of
// examples/vault, talking to them with mcp-go's own clients.
//
// Every behaviour runs against both stores: the embedded store (a state
// directory of its own per test) and a live Neo4j from neo4jtest, which
// skips those subtests when no Neo4j can be had (or fails them under
// VAULTGRAPH_REQUIRE_NEO4J=1). The binary keeps every note under the
// project "default", so Neo4j subtests take neo4jMu and start from an
// empty database: they never run in parallel with each other.
//
// The suite has no build tag: it runs in the normal "go test ./..." (and so
// in "make test"), and "make test-e2e" runs it alone.
package e2e
