package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/metrics"
	"github.com/vaultgraph/vaultgraph/tools"
)

// Name is the server name reported in the MCP handshake.
const Name = "vaultgraph"

// instructions tell a client what the server is for (MCP initialize).
const instructions = "vaultgraph serves a vault of markdown notes (frontmatter, #tags, [[wikilinks]]) as a graph. " +
	"A note's ID is its path in the vault, such as \"notes/ml-basics.md\", in any letter case, .md optional. " +
	"Use get_node with depth 1 for a note and its neighbours, find_path and get_hubs to explore structure."

// Options configure New.
type Options struct {
	// Version is the build's version (cmd's main.version); "" reports "dev".
	Version string
	// Tools are the tools to register, as tools.Select returned them.
	Tools []tools.Tool
	// Logger receives one line per tool call (logCalls says at which
	// level); nil means slog.Default().
	Logger *slog.Logger
	// Metrics, when set, counts every tool call by outcome and times it.
	Metrics *metrics.Metrics
	// Vault, when set, offers the vault's notes as resources, with
	// prompts and completions (package resources).
	Vault Surface
	// Title is serverInfo's human-readable name.
	Title string
	// ClientLogs, when set, sends log lines to the sessions that asked
	// for them (logging/setLevel).
	ClientLogs *ClientLogs
	// FirstSync, when set, is the vault's first sync, which tool calls
	// may still have to wait for (see FirstSync).
	FirstSync *FirstSync
}

// Surface is the vault's notes as MCP resources, its prompts and the
// completion of their arguments; package resources implements it.
type Surface interface {
	// Templates address every note (and attachment); List pages through
	// them (mcp-go lists only resources registered one by one).
	Templates() []mcpserver.ServerResourceTemplate
	List(ctx context.Context, cursor string) ([]mcp.Resource, string, error)
	Prompts() []mcpserver.ServerPrompt
	mcpserver.ResourceCompletionProvider
	mcpserver.PromptCompletionProvider
	// Live reports whether notes' changes are published; Attach then
	// connects them to the server's sessions (subscriptions through hooks).
	Live() bool
	Attach(srv *mcpserver.MCPServer, hooks *mcpserver.Hooks)
}

// SubscriptionGate is a Surface that vets a resources/subscribe before
// the server keeps it (issue 43: any URI, any length, any number, kept
// for the session's life, was memory for the asking): session is the
// MCP session's ID; an error refuses the request with its message.
type SubscriptionGate interface {
	CheckSubscribe(ctx context.Context, session, uri string) error
}

// SubscriptionLimit is a SubscriptionGate that bounds the notes one
// subscriptions/listen request (protocol 2026-07-28) may name.
type SubscriptionLimit interface {
	MaxSubscriptions() int
}

// gateSubscriptions refuses, before mcp-go handles it, a resources/subscribe
// the gate refuses, or a subscriptions/listen naming a resource the gate
// refuses or more than its limit (SubscriptionLimit): a JSON-RPC error
// -32600 (the only code mcp-go gives a request hook's refusal) with the
// gate's message. A request whose text holds neither method's name nor a
// backslash (which could spell it "resources\/subscribe") costs three
// bytes.Contains; others are decoded.
func gateSubscriptions(g SubscriptionGate) mcpserver.OnRequestInitializationFunc {
	subscribe, listen := []byte(mcp.MethodResourcesSubscribe), []byte(mcp.MethodSubscriptionsListen)
	return func(ctx context.Context, _ any, message any) error {
		raw, ok := message.(json.RawMessage)
		if !ok || !bytes.Contains(raw, subscribe) && !bytes.Contains(raw, listen) && !bytes.Contains(raw, []byte{'\\'}) {
			return nil
		}
		var m struct {
			Method string `json:"method"`
			Params struct {
				URI           string `json:"uri"`
				Notifications struct {
					ResourceSubscriptions []string `json:"resourceSubscriptions"`
				} `json:"notifications"`
			} `json:"params"`
		}
		if json.Unmarshal(raw, &m) != nil {
			return nil
		}
		switch m.Method {
		case string(mcp.MethodSubscriptionsListen):
			uris := m.Params.Notifications.ResourceSubscriptions
			if l, ok := g.(SubscriptionLimit); ok && len(uris) > l.MaxSubscriptions() {
				return fmt.Errorf("subscriptions/listen refused: it names %d resources, over the limit of %d (resources.max_subscriptions): follow fewer notes on one stream", len(uris), l.MaxSubscriptions())
			}
			for _, u := range uris {
				if err := g.CheckSubscribe(ctx, "", u); err != nil {
					return fmt.Errorf("subscriptions/listen refused: %w", err)
				}
			}
			return nil
		case string(mcp.MethodResourcesSubscribe):
		default:
			return nil
		}
		if m.Params.URI == "" {
			return nil
		}
		session := ""
		if s := mcpserver.ClientSessionFromContext(ctx); s != nil {
			session = s.SessionID()
		}
		if err := g.CheckSubscribe(ctx, session, m.Params.URI); err != nil {
			return fmt.Errorf("resources/subscribe refused: %w", err)
		}
		return nil
	}
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
	readOnly := make(map[string]bool, len(opts.Tools))
	for _, t := range opts.Tools {
		toolsets[t.Tool.Name] = t.Toolset
		readOnly[t.Tool.Name] = t.ReadOnly()
	}
	title := opts.Title
	if title == "" {
		title = DefaultTitle
	}
	serverOpts := []mcpserver.ServerOption{
		mcpserver.WithTitle(title),
		mcpserver.WithInstructions(instructions),
		mcpserver.WithToolCapabilities(false),
		// Logging first, so it is the outermost middleware and sees the
		// error WithRecovery makes of a panic.
		mcpserver.WithToolHandlerMiddleware(logCalls(logger, toolsets, readOnly, opts.Metrics)),
		mcpserver.WithRecovery(),
		mcpserver.WithToolHandlerMiddleware(reportProgress),
		mcpserver.WithToolHandlerMiddleware(attributeCalls),
		mcpserver.WithToolFilter(readOnlyPrincipalFilter),
		// logging/setLevel per session; ClientLogs sends the lines.
		mcpserver.WithLogging(),
	}
	if opts.FirstSync != nil {
		serverOpts = append(serverOpts, mcpserver.WithToolHandlerMiddleware(opts.FirstSync.gate(readOnly)))
	}
	hooks := &mcpserver.Hooks{}
	serverOpts = append(serverOpts, mcpserver.WithHooks(hooks))
	if opts.Vault != nil {
		hooks.AddAfterListResources(listNotes(opts.Vault, opts.FirstSync, logger))
		if g, ok := opts.Vault.(SubscriptionGate); ok && opts.Vault.Live() {
			hooks.AddOnRequestInitialization(gateSubscriptions(g))
		}
		if opts.FirstSync != nil {
			serverOpts = append(serverOpts, mcpserver.WithResourceHandlerMiddleware(opts.FirstSync.gateResources))
		}
		serverOpts = append(serverOpts,
			// Subscriptions and list changes when the vault's changes
			// reach the server (resources.Changes).
			mcpserver.WithResourceCapabilities(opts.Vault.Live(), opts.Vault.Live()),
			mcpserver.WithPromptCapabilities(false),
			mcpserver.WithCompletions(),
			mcpserver.WithResourceCompletionProvider(opts.Vault),
			mcpserver.WithPromptCompletionProvider(opts.Vault),
			mcpserver.WithResourceRecovery(),
		)
	}
	s := mcpserver.NewMCPServer(Name, version, serverOpts...)
	if opts.ClientLogs != nil {
		opts.ClientLogs.attach(s, hooks)
	}
	s.AddTools(tools.ServerTools(opts.Tools)...)
	if opts.Vault != nil {
		opts.Vault.Attach(s, hooks)
		s.AddResourceTemplates(opts.Vault.Templates()...)
		prompts := opts.Vault.Prompts()
		registerPrompts(prompts)
		s.AddPrompts(prompts...)
	}
	return s
}

// DefaultTitle is serverInfo's title.
const DefaultTitle = "vaultgraph: your markdown vault as a graph"

// listNotes fills resources/list with a page of the vault's notes. mcp-go
// lists only resources registered one by one, which a vault of 100,000
// notes, changing live, cannot be; its answer (empty: none are) is
// replaced after the fact, in the hook mcp-go calls before it encodes the
// answer. A store that fails leaves the page empty, and is logged. During
// the vault's first sync (first non-nil) it waits as a read tool does: a
// store that holds nothing yet would list no notes.
func listNotes(v Surface, first *FirstSync, logger *slog.Logger) func(context.Context, any, *mcp.ListResourcesRequest, *mcp.ListResourcesResult) {
	return func(ctx context.Context, _ any, req *mcp.ListResourcesRequest, res *mcp.ListResourcesResult) {
		first.waitRead(ctx)
		page, next, err := v.List(ctx, string(req.Params.Cursor))
		if err != nil {
			logger.WarnContext(ctx, "resources/list failed", "err", err)
			return
		}
		res.Resources = page
		res.NextCursor = mcp.Cursor(next)
	}
}

// reportProgress lets the services behind a tool report how far a long
// call is (core.ReportProgress: indexing a directory, waiting for a first
// sync); the reports reach the client as notifications/progress when its
// request carried a progress token (tools.Progress), and go nowhere else.
func reportProgress(next mcpserver.ToolHandlerFunc) mcpserver.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if p := tools.Progress(ctx, req); p != nil {
			ctx = core.WithProgress(ctx, func(done, total int, msg string) {
				p.Report(float64(done), float64(total), msg)
			})
		}
		return next(ctx, req)
	}
}
