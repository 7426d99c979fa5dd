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
			nc := neo4jConfig(cfg, logger)
			nc.ReadOnlySchema = true
			ro, err := neo4jstore.Open(ctx, nc)
			if err != nil {
				return fmt.Errorf("migrate: %s: %w", neo4jstore.Problem(err), err)
			}
			before, err := ro.Status(ctx)
			_ = ro.Close(context.WithoutCancel(ctx))
			if err != nil {
				return fmt.Errorf("migrate: %w", err)
			}
			s2, err := neo4jstore.Open(ctx, neo4jConfig(cfg, logger))
			if err != nil {
				return fmt.Errorf("migrate: %w", err)
			}
			defer func() { _ = s2.Close(context.WithoutCancel(ctx)) }()
			// Said only once the database's own records agree.
			after, err := s2.Status(ctx)
			if err != nil {
				return fmt.Errorf("migrate: %w", err)
			}
			pending := map[int]bool{}
			for _, m := range after.Pending {
				pending[m.Version] = true
			}
			for _, m := range before.Pending {
				if !pending[m.Version] {
					fmt.Fprintf(s.out, "applied %d: %s\n", m.Version, m.Name)
				}
			}
			if len(after.Pending) > 0 {
				return fmt.Errorf("migrate: %d schema migrations still pending after migrating (first: %d %s)", len(after.Pending), after.Pending[0].Version, after.Pending[0].Name)
			}
			fmt.Fprintf(s.out, "schema up to date: %d migrations pending before, none now\n", len(before.Pending))
			return nil
		},
	}
}
