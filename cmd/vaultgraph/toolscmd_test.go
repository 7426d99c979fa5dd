package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/config"
	"github.com/vaultgraph/vaultgraph/tools"
)

// TestToolsListsWhatServePublishes: for several configurations, `vaultgraph
// tools --json` names the tools, in the order and with the toolsets, that
// the app serve runs would publish over the same configuration (a real
// embedded store on a real vault).
func TestToolsListsWhatServePublishes(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
	}{
		{"defaults", nil},
		{"every toolset", map[string]string{"VAULTGRAPH_TOOLSETS": "all"}},
		{"read-only", map[string]string{"VAULTGRAPH_READ_ONLY": "true"}},
		{"no embeddings", map[string]string{"VAULTGRAPH_TOOLSETS": "all", "VAULTGRAPH_EMBEDDING_PROVIDER": "none"}},
		{"single tools and exclusions", map[string]string{"VAULTGRAPH_TOOLSETS": "graph", "VAULTGRAPH_TOOLS": "read_note", "VAULTGRAPH_EXCLUDE_TOOLS": "delete_node"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			isolate(t)
			vault := newVault(t)
			t.Setenv("VAULTGRAPH_VAULT", vault)
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			r := runCLI(t, "tools", "--json")
			require.Equal(t, exitOK, r.code, r.stderr)
			var listed []toolEntry
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &listed))

			cfg, err := config.Load(config.LoadOptions{RequireVault: true})
			require.NoError(t, err)
			a, err := openApp(t.Context(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
			require.NoError(t, err)
			t.Cleanup(func() { a.close(t.Context()) })
			served, err := a.tools()
			require.NoError(t, err)
			var want []toolEntry
			for _, s := range served {
				want = append(want, toolEntry{Name: s.Tool.Name, Title: s.Tool.Annotations.Title, Toolset: s.Toolset, ReadOnly: s.ReadOnly()})
			}
			assert.Equal(t, want, listed)
		})
	}
}

func TestToolsTable(t *testing.T) {
	isolate(t)
	r := runCLI(t, "tools")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Regexp(t, `(?m)^NAME\s+TITLE\s+TOOLSET$`, r.stdout)
	assert.Regexp(t, `(?m)^get_node\s+Get a note\s+graph$`, r.stdout)
	assert.Regexp(t, `(?m)^read_note\s+Read a knowledge base note\s+kb$`, r.stdout)
	assert.NotContains(t, r.stdout, "memory_store", "memory is off by default")
}

// The owner serves each client the tools the client selected, not its own
// configuration's: a client that selects the memory toolset gets the
// memory tools from an owner whose configuration leaves memory off (the
// default), and the owner's own selection still has none.
func TestTheOwnerServesAClientsOwnSelection(t *testing.T) {
	isolate(t)
	t.Setenv("VAULTGRAPH_VAULT", newVault(t))
	t.Setenv("VAULTGRAPH_EMBEDDING_PROVIDER", "none") // no model to load: the memory tools that need none are served
	cfg, err := config.Load(config.LoadOptions{RequireVault: true})
	require.NoError(t, err)
	own, err := becomeOwner(t.Context(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), nil, ownerOptions{oneShot: true})
	require.NoError(t, err)
	t.Cleanup(func() { own.Shutdown(context.WithoutCancel(t.Context())) })

	mine, err := own.ServerFor(own.App().selection())
	require.NoError(t, err)
	assert.Nil(t, mine.GetTool("memory_store"), "memory is off in the owner's configuration")
	assert.NotNil(t, mine.GetTool("get_node"))

	theirs, err := own.ServerFor(tools.Selection{Toolsets: []string{tools.ToolsetMemory}})
	require.NoError(t, err)
	assert.NotNil(t, theirs.GetTool("memory_store"), "the client selected memory")
	assert.Nil(t, theirs.GetTool("get_node"), "and only memory")
}
