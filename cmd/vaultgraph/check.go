package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/vaultgraph/vaultgraph/internal/plural"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/vault"
)

// errVaultProblems is check's answer when the vault has problems: exit 1.
var errVaultProblems = errors.New("the vault has problems")

func newCheckCommand(s streams) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "check",
		Short: "List the vault's problems: broken links, bad frontmatter, unreadable notes",
		Long: `check reads the vault as serve does and lists every problem it finds in its
notes: links that resolve to no note, frontmatter YAML that does not parse,
duplicate tags, files too large or unreadable. serve logs each once, when it
appears (a start logs only those new since the last one logged), and does not
send them to the model with every answer; check is how a person sees them all. It writes nothing: the vault is parsed into a throwaway
in-memory graph, whatever store is configured.

The exit status is 1 when there is any problem, 0 when there is none.`,
		Example: `  vaultgraph check --vault ~/notes
  vaultgraph check --vault ~/notes --json | jq '.[] | .path'`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, logger, err := loadConfig(cmd, s, true)
			if err != nil {
				return err
			}
			m, err := vault.NewMirror(vault.Config{
				// The throwaway graph's sync lines ("written=…") would say
				// check wrote something: only warnings and errors are logged.
				Root: cfg.Vault, Project: "check", Store: memstore.New(), Ignore: cfg.Ignore,
				Logger: quiet(logger), NoProgress: true,
			})
			if err != nil {
				return err
			}
			defer m.Close()
			stats, err := m.Sync(context.WithoutCancel(cmd.Context()))
			if err != nil {
				return err
			}
			entries := m.Lint().All()
			if asJSON {
				type entry struct {
					Path     string   `json:"path"`
					Problems []string `json:"problems"`
				}
				out := make([]entry, 0, len(entries))
				for _, e := range entries {
					out = append(out, entry{e.Path, e.Problems})
				}
				enc := json.NewEncoder(s.out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(out); err != nil {
					return err
				}
			} else {
				problems := 0
				for _, e := range entries {
					for _, p := range e.Problems {
						fmt.Fprintf(s.out, "%s: %s\n", e.Path, p)
						problems++
					}
				}
				fmt.Fprintf(s.err, "%s checked (nothing written): %s in %s\n", plural.Count(stats.Notes, "note"), plural.Count(problems, "problem"), plural.Count(len(entries), "note"))
			}
			if len(entries) > 0 {
				return errVaultProblems
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the problems as a JSON array of {path, problems}")
	return cmd
}
