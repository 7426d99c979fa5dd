package main

import (
	"github.com/spf13/cobra"
	"github.com/vaultgraph/vaultgraph/config"
)

func newServeCommand(s streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the vault's graph to MCP clients over stdio or HTTP",
		Long: `serve exposes the vault's graph to MCP clients through the enabled toolsets
(--toolsets; --read-only hides every tool that writes).

Without --http it speaks MCP over stdio: stdin and stdout carry JSON-RPC, logs
go to stderr. This is how a desktop client (Claude Desktop) runs it.

With --http ADDR it serves streamable HTTP at ADDR for many clients; clients
authenticate with a bearer token from http.tokens (env VAULTGRAPH_HTTP_TOKENS;
a token starting with ro: gets read-only tools).

Unless --watch=false, serve keeps the store in sync with the vault as files
change. The vault is required.

Not built yet: this build loads and validates the configuration, then exits
with status 1.`,
		Example: `  # stdio, embedded store (e.g. command "vaultgraph", args ["serve", "--vault", "/home/me/notes"])
  vaultgraph serve --vault ~/notes

  # streamable HTTP next to Neo4j; secrets from the environment
  VAULTGRAPH_NEO4J_PASSWORD=... VAULTGRAPH_HTTP_TOKENS=s3cret,ro:r3ader \
    vaultgraph serve --store neo4j --vault /srv/vault --http :8080`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, _, err := loadConfig(cmd, s, true); err != nil {
				return err
			}
			return notBuilt(cmd, "MCP server")
		},
	}
	config.AddFlags(cmd.Flags(), config.FlagServe)
	return cmd
}
