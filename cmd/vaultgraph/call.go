package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/config"
	"github.com/vaultgraph/vaultgraph/server"

	"github.com/spf13/cobra"
)

func newCallCommand(s streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "call TOOL [JSON]",
		Short: "Call one MCP tool against the vault and print its result",
		Long: `call runs a single tool in process, as an MCP client would call it, and prints
the tool's answer as one JSON document on stdout (warnings go to stderr): handy for scripts and for checking a
configuration without an MCP client. JSON is the tool's arguments, an object
(default {}). The vault (or projects) is required; the configuration (toolsets, read_only,
tool_renames) decides which tools exist, as it does for serve.

The exit status is 1 when the tool answers with an error result (isError),
after printing it.`,
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
			cfg, logger, err := loadConfig(cmd, s, true)
			if err != nil {
				return err
			}
			raw := json.RawMessage("{}")
			if len(args) == 2 {
				raw = json.RawMessage(args[1])
			}
			return callTool(cmd.Context(), cfg, logger, s, args[0], raw)
		},
	}
	return cmd
}

// errToolFailed marks a call whose tool answered with an error result.
var errToolFailed = errors.New("the tool answered with an error")

// callTool syncs the vault, runs one tool in process and prints its result.
func callTool(ctx context.Context, cfg *config.Config, logger *slog.Logger, s streams, name string, args json.RawMessage) error {
	a, err := openApp(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer a.close(ctx)
	if err := a.syncVault(ctx); err != nil {
		return err
	}
	a.indexNow(ctx, 0, true)
	toolList, err := a.tools()
	if err != nil {
		return err
	}
	srv := server.New(server.Options{Version: versionNumber(), Tools: toolList, Logger: logger})
	res, err := server.Call(ctx, srv, name, args)
	if err != nil {
		return fmt.Errorf("call %s: %w", name, err)
	}
	// Exactly one JSON document on stdout: the answer. An array or null
	// answer carries its warnings in a second content; they go to stderr.
	answer, warnings := splitWarnings(res)
	fmt.Fprintln(s.out, answer)
	for _, w := range warnings {
		fmt.Fprintln(s.err, "warning:", w)
	}
	if res.IsError {
		return fmt.Errorf("call %s: %w", name, errToolFailed)
	}
	return nil
}

// splitWarnings returns a tool result's answer (its first text content)
// and the warnings of the contents after it ({"_warnings": [...]}, spec
// 000's form for answers that are not objects).
func splitWarnings(res *mcp.CallToolResult) (answer string, warnings []string) {
	for i, c := range res.Content {
		tc, ok := mcp.AsTextContent(c)
		if !ok {
			continue
		}
		if i == 0 {
			answer = tc.Text
			continue
		}
		var w struct {
			Warnings []string `json:"_warnings"`
		}
		if json.Unmarshal([]byte(tc.Text), &w) == nil && w.Warnings != nil {
			warnings = append(warnings, w.Warnings...)
		} else {
			warnings = append(warnings, tc.Text)
		}
	}
	return answer, warnings
}
