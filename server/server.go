package server

import (
	"log/slog"

	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/metrics"
	"github.com/vaultgraph/vaultgraph/tools"
)

// Name is the server name reported in the MCP handshake.
const Name = "vaultgraph"

// instructions tell a client what the server is for (MCP initialize).
const instructions = "vaultgraph serves a vault of markdown notes (frontmatter, #tags, [[wikilinks]]) as a graph. " +
	"Node IDs are vault-relative paths such as \"notes/ml-basics.md\"; they match in any letter case. " +
	"Use get_node with depth 1 for a note and its neighbours, find_path and get_hubs to explore structure."

// Options configure New.
type Options struct {
	// Version is the build's version (cmd's main.version); "" reports "dev".
	Version string
	// Tools are the tools to register, as tools.Select returned them.
	Tools []tools.Tool
	// Logger receives one line per tool call; nil means slog.Default().
	Logger *slog.Logger
	// Metrics, when set, counts every tool call by outcome and times it.
	Metrics *metrics.Metrics
}

// New returns the MCP server named "vaultgraph" with opts.Tools registered.
// Every tool call is logged (see logCalls) and a panicking handler becomes
// an internal error instead of a crash. Callers of the HTTP transport may
// attach a read-only principal to the request context (HTTPServer does it
// for read-only tokens): such a caller sees and calls only tools whose
// ReadOnlyHint is true.
func New(opts Options) *mcpserver.MCPServer {
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	toolsets := make(map[string]string, len(opts.Tools))
	for _, t := range opts.Tools {
		toolsets[t.Tool.Name] = t.Toolset
	}
	s := mcpserver.NewMCPServer(Name, version,
		mcpserver.WithInstructions(instructions),
		mcpserver.WithToolCapabilities(false),
		// Logging first, so it is the outermost middleware and sees the
		// error WithRecovery makes of a panic.
		mcpserver.WithToolHandlerMiddleware(logCalls(logger, toolsets, opts.Metrics)),
		mcpserver.WithRecovery(),
		mcpserver.WithToolFilter(readOnlyPrincipalFilter),
	)
	s.AddTools(tools.ServerTools(opts.Tools)...)
	return s
}
