package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/config"
	"github.com/vaultgraph/vaultgraph/owner"
	"github.com/vaultgraph/vaultgraph/server"
	"github.com/vaultgraph/vaultgraph/tools"
	"github.com/vaultgraph/vaultgraph/tools/catalog"

	"github.com/spf13/cobra"
)

func newCallCommand(s streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "call TOOL [JSON]",
		Short: "Call one MCP tool against the vault and print its result",
		Long: `call runs a single tool, as an MCP client would call it, and prints
the tool's answer as one JSON document on stdout (warnings go to stderr): handy for scripts and for checking a
configuration without an MCP client. With the embedded store, when another vaultgraph
process serves the vault, the call goes to it (its store is current: nothing is synced);
otherwise call syncs the vault and runs the tool in process, without waiting for the
embedding model: a search compares the notes by the vectors they have plus keywords, and
warns how many notes wait for the model (vaultgraph sync --embed embeds them all). A tool
name that does not exist fails at once with the closest names. JSON is the tool's
arguments, an object (default {}). The vault (or projects) is required; the configuration (toolsets, read_only,
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

// callTool runs one tool and prints its result: through the process that
// owns the vault's embedded store when one runs (its store is current: no
// sync), else in process after a sync.
func callTool(ctx context.Context, cfg *config.Config, logger *slog.Logger, s streams, name string, args json.RawMessage) error {
	var (
		res *mcp.CallToolResult
		err error
	)
	// A name that no process could serve for this selection fails before
	// the store is opened: every owner's tools, and this process's, are
	// among the selection's tools with embeddings on (without them some
	// are left out, never added).
	if superset, err := tools.Select(catalog.Tools(catalog.Options{Embeddings: true}), selectionOf(cfg)); err == nil {
		if err := checkToolName(superset, name); err != nil {
			return err
		}
	}
	if shared(cfg) {
		res, err = callShared(ctx, cfg, logger, name, args)
	} else {
		res, err = callAlone(ctx, cfg, logger, name, args)
	}
	if err != nil {
		return err
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

// callShared calls the tool through the owner of the vault's store, or
// as its owner when none runs (others may connect meanwhile, and take
// over when this process exits). As the owner it answers once the graph
// is synced: it embeds nothing with the model (a search uses the vectors
// there are plus keywords, and says so), and it checks the tool's name
// before the sync, so a mistyped one fails at once.
func callShared(ctx context.Context, cfg *config.Config, logger *slog.Logger, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	var syncErr error
	// As the owner, this process exits after its call, as a one-shot sync
	// does after its sync (withOneShot).
	c := newConnector(cfg, logger, ownerOptions{oneShot: true, fail: func(err error) { syncErr = err }})
	defer c.Stop(context.WithoutCancel(ctx))
	own, conn, w, err := c.Find(ctx, owner.KindMCP, selectionOf(cfg))
	if err != nil {
		return nil, err
	}
	if own == nil {
		logger.Debug("calling through the vault's owning process", "pid", w.PID)
		// The owner's tools are checked first: a mistyped name fails
		// with the closest ones.
		res, err := server.CallOver(ctx, quietClose{ReadWriteCloser: conn}, name, args,
			func(listed []string) error { return checkName(listed, name) })
		if err != nil {
			return nil, fmt.Errorf("call %s through the vault's owning process (pid %d): %w", name, w.PID, err)
		}
		return res, nil
	}
	list, err := own.App().tools()
	if err != nil {
		return nil, err
	}
	if err := checkToolName(list, name); err != nil {
		return nil, err
	}
	select {
	case <-own.App().firstSync.Done():
	case <-ctx.Done():
		return nil, errInterrupted
	}
	if syncErr != nil {
		return nil, syncErr
	}
	srv, err := own.ServerFor(own.App().selection())
	if err != nil {
		return nil, err
	}
	res, err := server.Call(ctx, srv, name, args)
	if err != nil {
		return nil, fmt.Errorf("call %s: %w", name, err)
	}
	return res, nil
}

// callAlone syncs the vault, runs one tool in process and returns its
// result (Neo4j: every process has its own view of the shared database).
func callAlone(ctx context.Context, cfg *config.Config, logger *slog.Logger, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	a, err := openApp(ctx, cfg, logger, withOneShot())
	if err != nil {
		return nil, err
	}
	defer a.close(ctx)
	toolList, err := a.tools()
	if err != nil {
		return nil, err
	}
	if err := checkToolName(toolList, name); err != nil {
		return nil, err
	}
	if err := a.syncVault(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, errInterrupted
		}
		return nil, err
	}
	srv := server.New(server.Options{Version: versionNumber(), Tools: toolList, Logger: logger})
	res, err := server.Call(ctx, srv, name, args)
	if err != nil {
		return nil, fmt.Errorf("call %s: %w", name, err)
	}
	return res, nil
}

// quietClose is a connection whose reads, once it is closed, end as at the
// end of input: the MCP client's reader, still waiting for a line when the
// call is done and the client closes the connection, then stops quietly
// instead of logging "use of closed network connection" as an error.
type quietClose struct{ io.ReadWriteCloser }

func (q quietClose) Read(p []byte) (int, error) {
	n, err := q.ReadWriteCloser.Read(p)
	if errors.Is(err, net.ErrClosed) {
		err = io.EOF
	}
	return n, err
}

// checkToolName fails with an error naming the closest tools when
// name is not one of list's.
func checkToolName(list []tools.Tool, name string) error {
	names := make([]string, len(list))
	for i, t := range list {
		names[i] = t.Tool.Name
	}
	return checkName(names, name)
}

// maxSuggestions is how many close tool names an unknown name's error
// suggests.
const maxSuggestions = 3

// checkName fails when name is not one of names, suggesting the closest
// (by edit distance, and any name containing it or contained in it).
func checkName(names []string, name string) error {
	if slices.Contains(names, name) {
		return nil
	}
	type scored struct {
		name string
		dist int
	}
	var close []scored
	lower := strings.ToLower(name)
	for _, n := range names {
		d := levenshtein.ComputeDistance(lower, strings.ToLower(n))
		if d <= max(2, len(name)/3) || strings.Contains(n, lower) || strings.Contains(lower, n) {
			close = append(close, scored{n, d})
		}
	}
	slices.SortFunc(close, func(a, b scored) int {
		if a.dist != b.dist {
			return a.dist - b.dist
		}
		return strings.Compare(a.name, b.name)
	})
	var suggest []string
	for _, s := range close[:min(len(close), maxSuggestions)] {
		suggest = append(suggest, s.name)
	}
	msg := fmt.Sprintf("no tool %q in this configuration", name)
	if len(suggest) > 0 {
		msg += "; did you mean " + strings.Join(suggest, ", ") + "?"
	}
	return errors.New(msg + " (the configuration's toolsets decide which tools exist: `vaultgraph call --help`)")
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
