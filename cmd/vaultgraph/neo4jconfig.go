package main

import (
	"log/slog"

	"github.com/vaultgraph/vaultgraph/config"
	"github.com/vaultgraph/vaultgraph/metrics"
	"github.com/vaultgraph/vaultgraph/neo4jstore"
)

// neo4jConfig is the store configuration every command opens Neo4j with;
// callers set what is their own (Lazy, ReadOnlySchema, an Observer).
func neo4jConfig(cfg *config.Config, logger *slog.Logger) neo4jstore.Config {
	return neo4jstore.Config{
		URI:            cfg.Neo4j.URI,
		User:           cfg.Neo4j.User,
		Password:       cfg.Neo4j.Password.Reveal(),
		Database:       cfg.Neo4j.Database,
		MaxConnections: cfg.Neo4j.MaxConnections,
		Timeout:        cfg.Neo4j.Timeout,
		VectorCache:    vectorCache(cfg.Neo4j.VectorCache),
		TLSCAFile:      cfg.Neo4j.TLSCAFile,
		Logger:         logger,
	}
}

// The metrics hear the Neo4j store (openApp passes them as its Observer).
var _ neo4jstore.Observer = (*metrics.Metrics)(nil)
