package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vaultgraph/vaultgraph/config"
	"github.com/vaultgraph/vaultgraph/tools"
	"github.com/vaultgraph/vaultgraph/tools/catalog"
)

// toolEntry is one line of `vaultgraph tools`.
type toolEntry struct {
	Name     string `json:"name"`
	Title    string `json:"title"`
	Toolset  string `json:"toolset"`
	ReadOnly bool   `json:"readOnly"`
}

func newToolsCommand(s streams) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "List the tools the configuration serves",
		Long: `tools lists the tools serve would publish with this configuration (toolsets,
tools, exclude_tools, read_only, tool_renames, embedding.provider): each tool's
name as clients see it, its title and its toolset, in tools/list order. It
opens no store and needs no vault. docs/TOOLS.md describes every tool in full.

--json prints a JSON array of {name, title, toolset, readOnly} instead.`,
		Example: `  vaultgraph tools
  vaultgraph tools --toolsets all --json
  vaultgraph tools --read-only`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, _, err := loadConfig(cmd, s, false)
			if err != nil {
				return err
			}
			list, err := configuredTools(cfg)
			if err != nil {
				return err
			}
			entries := make([]toolEntry, len(list))
			for i, t := range list {
				title := t.Tool.Title
				if title == "" {
					title = t.Tool.Annotations.Title
				}
				entries[i] = toolEntry{Name: t.Tool.Name, Title: title, Toolset: t.Toolset, ReadOnly: t.ReadOnly()}
			}
			if asJSON {
				enc := json.NewEncoder(s.out)
				enc.SetIndent("", "  ")
				return enc.Encode(entries)
			}
			tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tTITLE\tTOOLSET")
			for _, e := range entries {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", e.Name, e.Title, e.Toolset)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array instead of a table")
	return cmd
}

// configuredTools is the tool list serve publishes for cfg, from the tool
// specs alone (tools/catalog).
func configuredTools(cfg *config.Config) ([]tools.Tool, error) {
	all := catalog.Tools(catalog.Options{Embeddings: cfg.Embedding.Provider != config.EmbeddingNone})
	return tools.Select(all, selectionOf(cfg))
}
