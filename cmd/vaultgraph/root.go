package main

import (
	"log/slog"
	"strings"

	"github.com/spf13/cobra"
	"github.com/vaultgraph/vaultgraph/config"
)

const rootLong = `vaultgraph mirrors a folder of markdown notes (an Obsidian-style vault:
YAML frontmatter, #tags, [[wikilinks]]) into a graph, and serves that graph to
AI assistants over the Model Context Protocol (MCP). The embedded store needs
no setup; Neo4j is the production store.

Configuration, lowest to highest precedence:
  1. built-in defaults
  2. a YAML file: --config PATH, else $VAULTGRAPH_CONFIG, else ./vaultgraph.yaml,
     else $XDG_CONFIG_HOME/vaultgraph/config.yaml (~/.config/vaultgraph/config.yaml)
  3. environment variables VAULTGRAPH_<KEY>; nested keys join with "_"
     (neo4j.uri is VAULTGRAPH_NEO4J_URI); lists are comma-separated
  4. command-line flags

"vaultgraph init" writes a commented file that explains every key, and
"vaultgraph status" shows the effective settings and where each came from.

Secrets (neo4j.password, http.tokens, embedding.api_key) are read from the
environment or the config file only: they are never accepted as flags, because
other users of the machine can read a process's arguments.

Exit status: 0 on success, 2 for an invalid configuration, flag or argument
(every problem is printed, one per line, to stderr), 1 for any other failure.
Logs go to stderr; stdout carries only command output.`

// newRootCommand builds the command tree. Global flags are the config
// package's FlagGlobal keys, bound to the configuration by config.Load.
func newRootCommand(s streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "vaultgraph",
		Short: "Serve a markdown vault as a knowledge graph over MCP",
		Long:  rootLong,
		Example: `  vaultgraph init ~/notes            # write ~/.config/vaultgraph/config.yaml for the vault
  vaultgraph status                  # show the effective configuration
  vaultgraph setup claude-desktop    # add vaultgraph to Claude Desktop's configuration
  vaultgraph serve                   # serve MCP over stdio (what a desktop client runs)`,
		Version:       versionString(),
		Args:          unknownCommand,
		RunE:          func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
		SilenceErrors: true, // execute prints errors, with the exit code's meaning
		SilenceUsage:  true,
	}
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &usageError{cmd: cmd, err: err}
	})
	config.AddFlags(root.PersistentFlags(), config.FlagGlobal)
	root.AddCommand(
		newServeCommand(s),
		newSyncCommand(s),
		newShimCommand(s),
		newCallCommand(s),
		newStatusCommand(s),
		newCheckCommand(s),
		newToolsCommand(s),
		newDoctorCommand(s),
		newMigrateCommand(s),
		newInitCommand(s),
		newSetupCommand(s),
		newHealthCommand(s),
		newViewCommand(s),
		newVersionCommand(s),
	)
	return root
}

// unknownCommand rejects arguments to the root command, which only ever
// reach it when they name no subcommand.
func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := "unknown command " + `"` + args[0] + `"`
	if suggestions := cmd.SuggestionsFor(args[0]); len(suggestions) > 0 {
		msg += "; did you mean " + strings.Join(suggestions, " or ") + "?"
	}
	return usagef(cmd, "%s", msg)
}

// loadConfig loads and validates the configuration from the command's flags,
// the environment and the config file, and builds the logger from it.
// requireVault makes a missing vault a configuration error.
func loadConfig(cmd *cobra.Command, s streams, requireVault bool) (*config.Config, *slog.Logger, error) {
	cfg, err := config.Load(config.LoadOptions{Flags: cmd.Flags(), RequireVault: requireVault})
	if err != nil {
		return nil, nil, err
	}
	logger := newLogger(s.err, cfg.Log)
	logger.Debug("configuration loaded", "command", cmd.Name(), "config", cfg)
	return cfg, logger, nil
}
