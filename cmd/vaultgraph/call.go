package main

import (
	"encoding/json"

	"github.com/spf13/cobra"
)

func newCallCommand(s streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "call TOOL [JSON]",
		Short: "Call one MCP tool against the vault and print its result",
		Long: `call runs a single tool in process, as an MCP client would call it, and prints
the tool's result as JSON on stdout: handy for scripts and for checking a
configuration without an MCP client. JSON is the tool's arguments, an object
(default {}). The vault is required; the configuration (toolsets, read_only,
tool_renames) decides which tools exist, as it does for serve.

Not built yet: this build checks its arguments and the configuration, then
exits with status 1.`,
		Example: `  vaultgraph call get_node '{"id": "concepts/BM25"}' --vault ~/notes
  vaultgraph call get_hubs --vault ~/notes --toolsets graph`,
		Args: usageArgs(cobra.RangeArgs(1, 2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 2 {
				var obj map[string]any
				if err := json.Unmarshal([]byte(args[1]), &obj); err != nil || obj == nil {
					return usagef(cmd, "arguments %q are not a JSON object, want e.g. '{\"id\": \"note\"}'", args[1])
				}
			}
			if _, _, err := loadConfig(cmd, s, true); err != nil {
				return err
			}
			return notBuilt(cmd, "tool runner")
		},
	}
	return cmd
}
