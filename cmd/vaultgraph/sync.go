package main

import "github.com/spf13/cobra"

func newSyncCommand(s streams) *cobra.Command {
	var watch bool
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "Mirror the vault into the store, once or continuously",
		Long: `sync scans the vault and brings the store in line with it: new and changed
notes are written, deleted notes removed, links resolved. The vault is the source
of truth: deleting the store and running sync gives back the same graph.

With --watch it keeps running after the first pass and mirrors every change as
files are created, edited, moved or deleted: the worker to run beside a shared
"serve --http". (The watch key of the configuration applies to serve only.)

Not built yet: this build loads and validates the configuration, then exits
with status 1.`,
		Example: `  vaultgraph sync --vault ~/notes
  vaultgraph sync --store neo4j --vault /srv/vault --watch`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, _, err := loadConfig(cmd, s, true); err != nil {
				return err
			}
			_ = watch // read by the sync worker once it lands
			return notBuilt(cmd, "sync worker")
		},
	}
	cmd.Flags().BoolVar(&watch, "watch", false, "keep running and mirror changes as files change")
	return cmd
}
