// Package neo4jdefaults holds the Neo4j store's defaults that the
// configuration (config: neo4j.max_connections, neo4j.timeout) and the
// store itself (neo4jstore.Config, for a Config built in code: tests,
// benchmarks) both apply, so that the two cannot differ.
package neo4jdefaults

import "time"

const (
	// MaxConnections caps the driver's connection pool: half the
	// driver's own default of 100, enough for a replica's concurrent
	// calls (each holds at most one connection) without taking a shared
	// server's connections from other replicas.
	MaxConnections = 50
	// Timeout bounds one store call when its context has no earlier
	// deadline (and is sent as the server-side transaction timeout).
	// Large writes are staged in batches, each well under it.
	Timeout = 30 * time.Second
)
