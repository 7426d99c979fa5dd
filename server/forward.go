package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/metrics"
	"github.com/vaultgraph/vaultgraph/resources"
	"github.com/vaultgraph/vaultgraph/tools"
)

// ForwardOptions configure NewForward.
type ForwardOptions struct {
	// Connect returns how a backend session reaches the vault's owner:
	// readOnly for the sessions of read-only tokens, whose connection
	// asks the owner for its read tools only.
	Connect func(readOnly bool) Connect
	// Version, Logger, Metrics and ClientLogs are as in Options: the
	// forwarding server logs and counts the calls it relays, and sends
	// this process's own log lines to the clients that ask.
	Version    string
	Logger     *slog.Logger
	Metrics    *metrics.Metrics
	ClientLogs *ClientLogs
	// Canonical maps a resource URI a client subscribes to onto the URI
	// the owner's notifications/resources/updated names for it (the
	// owner's resources.CanonicalURI); nil: the URI as it is.
	Canonical func(uri string) string
	// MaxSubscriptions bounds the resources/subscribe of one front
	// session (resources.max_subscriptions); 0: 1000.
	MaxSubscriptions int
}

// Forward is the MCP server of an HTTP front whose process does not own
// the vault's store (package owner): mcp-go's streamable HTTP transport
// serves its clients as usual (sessions, tokens, both protocol eras), and
// each tool call, resource read, resource list, prompt and completion is
// sent on to the owner through a backend session: an MCP client over a
// relay (RunRelay), so that when the owner exits or is killed the backend
// reconnects to the next owner (this process, once it takes the store
// over) and the HTTP clients carry on. The tools, resource templates and
// prompts are the owner's, listed once when the front starts.
//
// Calls of read-only tokens go through a backend of their own, which the
// owner serves its read tools only; the front's read-only filter hides the
// others as for a store of its own. A progress token is replaced by one of
// the front's (the backends are shared by every session) and the owner's
// progress notifications reach the client under its own; a call the
// client cancels (or whose HTTP request ends) is cancelled at the owner.
// A resource subscription (resources/subscribe, protocol 2025-11-25) is
// made once per URI at the owner through the read-write backend, and the
// owner's notifications/resources/updated reach the sessions subscribed
// to it; notifications/resources/list_changed reaches every session.
type Forward struct {
	opts   ForwardOptions
	logger *slog.Logger
	srv    atomic.Pointer[mcpserver.MCPServer] // set once built; notifications may come before
	ctx    context.Context
	cancel context.CancelFunc

	templates []mcpserver.ServerResourceTemplate
	prompts   []mcpserver.ServerPrompt

	dialing  [2]sync.Mutex // one dial at a time per backend, without holding up the other
	mu       sync.Mutex
	backends [2]*backend // read-write, read-only
	closed   bool

	progress sync.Map // token of the front's → *tools.ProgressReporter
	seq      atomic.Int64

	subMu   sync.Mutex
	subs    map[string]map[string]bool         // session ID → URIs it subscribed to, as sent
	remote  map[string]int                     // URI → sessions subscribed to it (subscribed at the owner while > 0)
	listens map[string]mcpserver.ClientSession // key in subs of a subscriptions/listen stream → its session
}

// backend is one MCP client session at the vault's owner.
type backend struct {
	c    *client.Client
	ctx  context.Context // ends when the relay under c ends
	stop context.CancelFunc
	in   *io.PipeWriter
	done chan struct{}
}

// forwardInitWait bounds the start of a backend session: a connection to
// an owner (or this process taking the store over) and its initialize.
const forwardInitWait = relayInitWait

// NewForward connects the read-write backend (waiting while ctx allows
// for an owner to answer), lists the owner's tools, resource templates
// and prompts, and returns the forwarding server. Close ends it.
func NewForward(ctx context.Context, opts ForwardOptions) (*Forward, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	f := &Forward{opts: opts, logger: logger, ctx: bg, cancel: cancel, subs: map[string]map[string]bool{}, remote: map[string]int{}, listens: map[string]mcpserver.ClientSession{}}
	fail := func(err error) (*Forward, error) {
		f.Close()
		return nil, err
	}
	b, err := f.backend(ctx, false)
	if err != nil {
		return fail(err)
	}
	listed, err := b.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return fail(fmt.Errorf("forward: list the owner's tools: %w", err))
	}
	list := make([]tools.Tool, 0, len(listed.Tools))
	for _, t := range listed.Tools {
		list = append(list, tools.Tool{Tool: t, Handler: f.callTool})
	}
	if res, err := b.c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{}); err == nil {
		for _, t := range res.ResourceTemplates {
			f.templates = append(f.templates, mcpserver.ServerResourceTemplate{Template: t, Handler: f.readResource})
		}
	} else if !errors.Is(err, mcp.ErrMethodNotFound) {
		return fail(fmt.Errorf("forward: list the owner's resource templates: %w", err))
	}
	if res, err := b.c.ListPrompts(ctx, mcp.ListPromptsRequest{}); err == nil {
		for _, p := range res.Prompts {
			f.prompts = append(f.prompts, mcpserver.ServerPrompt{Prompt: p, Handler: f.getPrompt})
		}
	} else if !errors.Is(err, mcp.ErrMethodNotFound) {
		return fail(fmt.Errorf("forward: list the owner's prompts: %w", err))
	}
	f.srv.Store(New(Options{Version: opts.Version, Tools: list, Logger: logger, Metrics: opts.Metrics, ClientLogs: opts.ClientLogs, Vault: f}))
	return f, nil
}

// Server returns the forwarding MCP server, for HTTPServer.Attach.
func (f *Forward) Server() *mcpserver.MCPServer { return f.srv.Load() }

// Ready reports whether the owner answers through the read-write backend
// (a ping; it waits while the backend reconnects, as long as ctx allows).
func (f *Forward) Ready(ctx context.Context) error {
	b, err := f.backend(ctx, false)
	if err != nil {
		return err
	}
	ctx, cancel := b.scope(ctx)
	defer cancel()
	//lint:ignore SA1019 the backend speaks 2025-11-25, which has ping: it crosses the relay to the owner.
	return b.c.Ping(ctx)
}

// Close ends the backend sessions (their requests in flight are answered
// or lost first: the relays drain).
func (f *Forward) Close() {
	f.mu.Lock()
	f.closed = true
	bs := f.backends
	f.mu.Unlock()
	for _, b := range bs {
		if b != nil {
			b.close()
		}
	}
	f.cancel()
}

// backend returns the backend session for read-only or read-write calls,
// starting it at its first use, or again when its relay has ended.
func (f *Forward) backend(ctx context.Context, readOnly bool) (*backend, error) {
	i := 0
	if readOnly {
		i = 1
	}
	current := func() (*backend, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.closed {
			return nil, errors.New("forward: the server is shutting down")
		}
		if b := f.backends[i]; b != nil && b.ctx.Err() == nil {
			return b, nil
		}
		return nil, nil
	}
	if b, err := current(); b != nil || err != nil {
		return b, err
	}
	f.dialing[i].Lock()
	defer f.dialing[i].Unlock()
	if b, err := current(); b != nil || err != nil {
		return b, err // dialled meanwhile
	}
	b, err := f.dial(ctx, readOnly)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		go b.close()
		return nil, errors.New("forward: the server is shutting down")
	}
	f.backends[i] = b
	return b, nil
}

// dial starts a backend session: an mcp-go client whose transport is a
// relay to the owner.
func (f *Forward) dial(ctx context.Context, readOnly bool) (*backend, error) {
	bctx, stop := context.WithCancel(f.ctx)
	toRelay, fromClient := io.Pipe()
	toClient, fromRelay := io.Pipe()
	b := &backend{ctx: bctx, stop: stop, in: fromClient, done: make(chan struct{})}
	go func() {
		defer close(b.done)
		defer stop()
		err := RunRelay(bctx, f.opts.Connect(readOnly), toRelay, fromRelay, f.logger)
		if err == nil {
			err = io.EOF
		}
		if bctx.Err() == nil {
			f.logger.Warn("forward: the connection to the vault's owner ended", "err", err)
		}
		_ = fromRelay.CloseWithError(err)
		_ = toRelay.CloseWithError(err)
	}()
	b.c = client.NewClient(transport.NewIO(toClient, fromClient, nil), client.WithProtocolVersion(mcp.ProtocolVersion20251125))
	b.c.OnNotification(f.notified)
	fail := func(err error) (*backend, error) {
		b.close()
		return nil, err
	}
	if err := b.c.Start(bctx); err != nil {
		return fail(fmt.Errorf("forward: start: %w", err))
	}
	ictx, cancel := context.WithTimeout(ctx, forwardInitWait)
	defer cancel()
	ictx, cancel2 := b.scope(ictx)
	defer cancel2()
	var req mcp.InitializeRequest
	req.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	req.Params.ClientInfo = mcp.Implementation{Name: "vaultgraph-http-front", Version: f.opts.Version}
	if _, err := b.c.Initialize(ictx, req); err != nil {
		return fail(fmt.Errorf("forward: the vault's owning process did not answer: %w", err))
	}
	return b, nil
}

// scope returns ctx, also ended when the backend's relay ends (its
// requests would otherwise wait for an answer that cannot come).
func (b *backend) scope(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(b.ctx, cancel)
	return ctx, func() { stop(); cancel() }
}

// close ends the session: the relay sees the end of its input, answers
// or loses what is in flight, and returns.
func (b *backend) close() {
	_ = b.in.Close()
	<-b.done
	_ = b.c.Close()
}

// forFront returns the backend for the calling principal.
func (f *Forward) forFront(ctx context.Context) (*backend, error) {
	p, _ := principalFrom(ctx)
	return f.backend(ctx, p.readOnly)
}

// callTool forwards a tool call; its progress reaches the client under
// the client's own token.
func (f *Forward) callTool(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	b, err := f.forFront(ctx)
	if err != nil {
		return nil, err
	}
	var fwd mcp.CallToolRequest
	fwd.Params.Name = req.Params.Name
	fwd.Params.Arguments = req.Params.Arguments
	if p := tools.Progress(ctx, req); p != nil {
		token := "vaultgraph-forward-" + strconv.FormatInt(f.seq.Add(1), 10)
		f.progress.Store(token, p)
		defer f.progress.Delete(token)
		fwd.Params.Meta = &mcp.Meta{ProgressToken: token}
	}
	// The owner records the caller, not "local", as the writer of what
	// the call changes (owner.KindMCPFront).
	if p, ok := principalFrom(ctx); ok && p.actor.ID != "" {
		if fwd.Params.Meta == nil {
			fwd.Params.Meta = &mcp.Meta{}
		}
		fwd.Params.Meta.AdditionalFields = map[string]any{ActorMetaKey: actorMeta(p.actor)}
	}
	ctx, cancel := b.scope(ctx)
	defer cancel()
	return b.c.CallTool(ctx, fwd)
}

// notified passes the owner's progress notifications on to the client
// whose call they are about, and its resource notifications to the
// sessions that subscribed; the backends ask for nothing else.
func (f *Forward) notified(n mcp.JSONRPCNotification) {
	switch n.Method {
	case string(mcp.MethodNotificationResourceUpdated):
		uri, _ := n.Params.AdditionalFields["uri"].(string)
		f.resourceUpdated(uri)
		return
	case string(mcp.MethodNotificationResourcesListChanged):
		if srv := f.srv.Load(); srv != nil {
			srv.SendNotificationToAllClients(n.Method, nil)
		}
		return
	case string(mcp.MethodNotificationProgress):
	default:
		return
	}
	token, _ := n.Params.AdditionalFields["progressToken"].(string)
	v, ok := f.progress.Load(token)
	if !ok {
		return
	}
	num := func(k string) float64 {
		x, _ := n.Params.AdditionalFields[k].(float64)
		return x
	}
	msg, _ := n.Params.AdditionalFields["message"].(string)
	v.(*tools.ProgressReporter).Report(num("progress"), num("total"), msg)
}

func (f *Forward) readResource(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	b, err := f.forFront(ctx)
	if err != nil {
		return nil, err
	}
	var fwd mcp.ReadResourceRequest
	fwd.Params.URI = req.Params.URI
	fwd.Params.Arguments = req.Params.Arguments
	ctx, cancel := b.scope(ctx)
	defer cancel()
	res, err := b.c.ReadResource(ctx, fwd)
	if err != nil {
		return nil, err
	}
	return res.Contents, nil
}

func (f *Forward) getPrompt(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	b, err := f.forFront(ctx)
	if err != nil {
		return nil, err
	}
	var fwd mcp.GetPromptRequest
	fwd.Params.Name = req.Params.Name
	fwd.Params.Arguments = req.Params.Arguments
	ctx, cancel := b.scope(ctx)
	defer cancel()
	return b.c.GetPrompt(ctx, fwd)
}

// Templates, List, Prompts, the completions, Live and Attach make the
// owner's resources and prompts the front's (Surface).

func (f *Forward) Templates() []mcpserver.ServerResourceTemplate { return f.templates }
func (f *Forward) Prompts() []mcpserver.ServerPrompt             { return f.prompts }

func (f *Forward) List(ctx context.Context, cursor string) ([]mcp.Resource, string, error) {
	b, err := f.forFront(ctx)
	if err != nil {
		return nil, "", err
	}
	var req mcp.ListResourcesRequest
	req.Params.Cursor = mcp.Cursor(cursor)
	ctx, cancel := b.scope(ctx)
	defer cancel()
	res, err := b.c.ListResourcesByPage(ctx, req)
	if err != nil {
		return nil, "", err
	}
	return res.Resources, string(res.NextCursor), nil
}

func (f *Forward) complete(ctx context.Context, ref any, argument mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	b, err := f.forFront(ctx)
	if err != nil {
		return nil, err
	}
	var req mcp.CompleteRequest
	req.Params.Ref = ref
	req.Params.Argument.Name = argument.Name
	req.Params.Argument.Value = argument.Value
	req.Params.Context = cc
	ctx, cancel := b.scope(ctx)
	defer cancel()
	res, err := b.c.Complete(ctx, req)
	if err != nil {
		return nil, err
	}
	return &res.Completion, nil
}

func (f *Forward) CompleteResourceArgument(ctx context.Context, uri string, argument mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	return f.complete(ctx, mcp.ResourceReference{Type: "ref/resource", URI: uri}, argument, cc)
}

func (f *Forward) CompletePromptArgument(ctx context.Context, promptName string, argument mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	return f.complete(ctx, mcp.PromptReference{Type: "ref/prompt", Name: promptName}, argument, cc)
}

// Live is true: the owner's resource notifications are relayed.
func (f *Forward) Live() bool { return true }

// Attach follows the front's sessions' subscriptions (server.New calls it
// before f.srv is set).
func (f *Forward) Attach(_ *mcpserver.MCPServer, hooks *mcpserver.Hooks) {
	hooks.AddBeforeSubscribe(func(ctx context.Context, _ any, req *mcp.SubscribeRequest) {
		if s := mcpserver.ClientSessionFromContext(ctx); s != nil && req.Params.URI != "" {
			f.subscribe(ctx, s.SessionID(), req.Params.URI)
		}
	})
	hooks.AddBeforeUnsubscribe(func(ctx context.Context, _ any, req *mcp.UnsubscribeRequest) {
		if s := mcpserver.ClientSessionFromContext(ctx); s != nil {
			f.unsubscribe(ctx, s.SessionID(), []string{req.Params.URI})
		}
	})
	// A subscriptions/listen stream (protocol 2026-07-28) has no session
	// ID: it is kept under a key of its own, subscribed at the owner as a
	// session's subscriptions are, until its request ends.
	hooks.AddBeforeSubscriptionsListen(func(ctx context.Context, _ any, req *mcp.SubscriptionsListenRequest) {
		s := mcpserver.ClientSessionFromContext(ctx)
		uris := req.Params.Notifications.ResourceSubscriptions
		if s == nil || len(uris) == 0 {
			return
		}
		key := "listen:" + strconv.FormatInt(f.seq.Add(1), 10)
		f.subMu.Lock()
		f.listens[key] = s
		f.subMu.Unlock()
		for _, u := range uris {
			f.subscribe(ctx, key, u)
		}
		context.AfterFunc(ctx, func() {
			f.subMu.Lock()
			delete(f.listens, key)
			f.subMu.Unlock()
			ctx, cancel := context.WithTimeout(f.ctx, forwardInitWait)
			defer cancel()
			f.unsubscribe(ctx, key, uris)
		})
	})
	hooks.AddOnUnregisterSession(func(ctx context.Context, s mcpserver.ClientSession) {
		f.subMu.Lock()
		uris := make([]string, 0, len(f.subs[s.SessionID()]))
		for u := range f.subs[s.SessionID()] {
			uris = append(uris, u)
		}
		f.subMu.Unlock()
		if len(uris) > 0 {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), forwardInitWait)
			defer cancel()
			f.unsubscribe(ctx, s.SessionID(), uris)
		}
	})
}

// MaxSubscriptions is the subscriptions one session or listen stream may
// hold (server's gate refuses a subscriptions/listen naming more).
func (f *Forward) MaxSubscriptions() int {
	if f.opts.MaxSubscriptions <= 0 {
		return 1000
	}
	return f.opts.MaxSubscriptions
}

// CheckSubscribe vets a resources/subscribe of a front session before it
// is kept (server.New's hook): the session holds fewer than
// MaxSubscriptions others, and the owner reads the resource (it exists).
func (f *Forward) CheckSubscribe(ctx context.Context, session, uri string) error {
	limit := f.MaxSubscriptions()
	f.subMu.Lock()
	set := f.subs[session]
	full := set != nil && !set[uri] && len(set) >= limit
	f.subMu.Unlock()
	if full {
		return fmt.Errorf("this session holds %d subscriptions, the limit (resources.max_subscriptions): unsubscribe (resources/unsubscribe) from notes you no longer follow, then subscribe again", limit)
	}
	var req mcp.ReadResourceRequest
	req.Params.URI = uri
	if _, err := f.readResource(ctx, req); err != nil {
		return fmt.Errorf("the vault's owner has no resource at this URI (%v): subscribe to a note that exists (resources/list names them)", err)
	}
	return nil
}

// subscribe records session's subscription to uri, subscribing at the
// owner when it is the first to it.
func (f *Forward) subscribe(ctx context.Context, session, uri string) {
	f.subMu.Lock()
	set := f.subs[session]
	if set == nil {
		set = map[string]bool{}
		f.subs[session] = set
	}
	first := false
	if !set[uri] {
		set[uri] = true
		f.remote[uri]++
		first = f.remote[uri] == 1
	}
	f.subMu.Unlock()
	if first {
		f.remoteSubscription(ctx, uri, true)
	}
}

// unsubscribe drops session's subscriptions to uris, unsubscribing at the
// owner from those no session follows any more.
func (f *Forward) unsubscribe(ctx context.Context, session string, uris []string) {
	var last []string
	f.subMu.Lock()
	set := f.subs[session]
	for _, u := range uris {
		if !set[u] {
			continue
		}
		delete(set, u)
		if f.remote[u]--; f.remote[u] <= 0 {
			delete(f.remote, u)
			last = append(last, u)
		}
	}
	if len(set) == 0 {
		delete(f.subs, session)
	}
	f.subMu.Unlock()
	for _, u := range last {
		f.remoteSubscription(ctx, u, false)
	}
}

// remoteSubscription subscribes to (or unsubscribes from) uri at the
// owner. The backend's relay replays it with the next owner.
func (f *Forward) remoteSubscription(ctx context.Context, uri string, on bool) {
	b, err := f.backend(ctx, false)
	if err == nil {
		ctx, cancel := b.scope(ctx)
		defer cancel()
		//lint:ignore SA1019 the backend speaks 2025-11-25, which has resources/subscribe.
		sub, unsub := b.c.Subscribe, b.c.Unsubscribe
		if on {
			var req mcp.SubscribeRequest
			req.Params.URI = uri
			err = sub(ctx, req)
		} else {
			var req mcp.UnsubscribeRequest
			req.Params.URI = uri
			err = unsub(ctx, req)
		}
	}
	if err != nil {
		f.logger.Warn("forward: a resource subscription did not reach the vault's owner", "uri", uri, "subscribe", on, "err", err)
	}
}

// resourceUpdated tells the sessions subscribed to uri (in any of its
// forms) that the owner says it changed.
func (f *Forward) resourceUpdated(uri string) {
	canonical := f.opts.Canonical
	if canonical == nil {
		canonical = func(u string) string { return u }
	}
	var sessions []string
	var streams []mcpserver.ClientSession
	f.subMu.Lock()
	for s, set := range f.subs {
		for u := range set {
			if u == uri || canonical(u) == uri {
				if l := f.listens[s]; l != nil {
					streams = append(streams, l)
				} else {
					sessions = append(sessions, s)
				}
				break
			}
		}
	}
	f.subMu.Unlock()
	for _, s := range streams {
		resources.NotifyStream(s, uri)
	}
	srv := f.srv.Load()
	if srv == nil {
		return
	}
	for _, s := range sessions {
		_ = srv.SendNotificationToSpecificClient(s, string(mcp.MethodNotificationResourceUpdated), map[string]any{"uri": uri})
	}
}

var _ Surface = (*Forward)(nil)
