package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/vaultgraph/vaultgraph/config"
	"github.com/vaultgraph/vaultgraph/neo4jstore"
)

func newMigrateCommand(s streams) *cobra.Command {
	return &cobra.Command{
		Use:   "migrate",
		Short: "Apply the store's pending schema migrations",
		Long: `migrate brings the store's schema up to this version of vaultgraph: on Neo4j it
applies the migrations the database has not run yet (constraints and indexes,
each recorded in the graph), then waits for new indexes to come online. Every
serve and sync does the same when it starts; migrate is for teams that upgrade
the schema on purpose, before starting the servers. 'vaultgraph status' shows
what is pending without applying it. The embedded store has no schema to
migrate.`,
		Example: `  vaultgraph migrate --store neo4j`,
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, logger, err := loadConfig(cmd, s, false)
			if err != nil {
				return err
			}
			if cfg.Store != config.StoreNeo4j {
				fmt.Fprintln(s.out, "the embedded store has no schema migrations")
				return nil
			}
			ctx := cmd.Context()
			ro, err := neo4jstore.Open(ctx, neo4jstore.Config{
				URI: cfg.Neo4j.URI, User: cfg.Neo4j.User, Password: cfg.Neo4j.Password.Reveal(),
				Database: cfg.Neo4j.Database, Timeout: cfg.Neo4j.Timeout, Logger: logger, ReadOnlySchema: true,
			})
			if err != nil {
				return fmt.Errorf("migrate: %w", err)
			}
			before, err := ro.Status(ctx)
			_ = ro.Close(context.WithoutCancel(ctx))
			if err != nil {
				return fmt.Errorf("migrate: %w", err)
			}
			s2, err := neo4jstore.Open(ctx, neo4jstore.Config{
				URI: cfg.Neo4j.URI, User: cfg.Neo4j.User, Password: cfg.Neo4j.Password.Reveal(),
				Database: cfg.Neo4j.Database, Timeout: cfg.Neo4j.Timeout, Logger: logger,
			})
			if err != nil {
				return fmt.Errorf("migrate: %w", err)
			}
			defer func() { _ = s2.Close(context.WithoutCancel(ctx)) }()
			for _, m := range before.Pending {
				fmt.Fprintf(s.out, "applied %d: %s\n", m.Version, m.Name)
			}
			fmt.Fprintf(s.out, "schema up to date: %d migrations pending before, none now\n", len(before.Pending))
			return nil
		},
	}
}
