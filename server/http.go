package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/internal/jsonrpc"
	"github.com/vaultgraph/vaultgraph/metrics"
)

// HTTP paths.
const (
	MCPPath    = "/mcp"     // streamable HTTP endpoint
	HealthPath = "/healthz" // liveness, no auth
	ReadyPath  = "/readyz"  // readiness, no auth
)

// HTTP limits (docs/LIMITS.md lists them). Each has a reason; none is a
// tuning knob users need.
const (
	// DefaultMaxBodyBytes caps a request body before anything buffers it
	// (the MCP handler reads whole bodies). 8 MiB holds any note a client
	// should send in one create_node.
	DefaultMaxBodyBytes = 8 << 20
	// readHeaderTimeout stops clients that trickle headers (slowloris).
	readHeaderTimeout = 10 * time.Second
	// readTimeout bounds reading a whole request, body included.
	readTimeout = 60 * time.Second
	// idleTimeout closes keep-alive connections nobody uses.
	idleTimeout = 120 * time.Second
	// No write timeout: a GET on /mcp is a long-lived SSE stream, and a
	// tool call streams its answer; heartbeats keep idle streams alive
	// through proxies instead.
	heartbeatInterval = 30 * time.Second
	// shutdownTimeout is how long in-flight requests get to finish once
	// the context is cancelled.
	shutdownTimeout = 10 * time.Second
	// maxHeaderBytes caps a request's headers: an access token is a few
	// KiB (maxAuthorizationBytes caps it alone); net/http's default of
	// 1 MiB let a client make the server buffer far more.
	maxHeaderBytes = 64 << 10
)

// HTTPOptions configure the HTTP transport.
type HTTPOptions struct {
	// Addr is the listen address (host:port), e.g. "127.0.0.1:8765".
	Addr string
	// Tokens are the accepted bearer tokens. With none, every request is
	// served without authentication, which is allowed on a loopback
	// address only.
	Tokens []Token
	// MaxBodyBytes caps request bodies; 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// AllowedOrigins are the browser origins (scheme://host[:port]) that
	// may call the server besides those on a loopback host; "*" allows
	// every origin. A request with another Origin header gets 403.
	AllowedOrigins []string
	// AllowedHosts are Host header values (with or without a port)
	// accepted on a loopback connection besides loopback names: the
	// public name of a reverse proxy on the same machine that does not
	// rewrite Host.
	AllowedHosts []string
	// SessionIdleTimeout closes a session unused for this long; 0 means
	// DefaultSessionIdleTimeout.
	SessionIdleTimeout time.Duration
	// MaxSessions, MaxSessionsPerToken and MaxSessionsPerClient bound the
	// open sessions of the server, of one token and of one token from one
	// IP address; 0 means the defaults.
	MaxSessions, MaxSessionsPerToken, MaxSessionsPerClient int
	// TLSCert and TLSKey, both set, serve HTTPS with that certificate
	// and key (PEM files).
	TLSCert, TLSKey string
	// Ready, when set, is asked by /readyz; an error answers 503. /healthz
	// only says the process answers.
	Ready func(context.Context) error
	// Metrics, when set, counts sessions and refused requests.
	Metrics *metrics.Metrics
	// Logger receives transport logs; nil means slog.Default().
	Logger *slog.Logger
	// Mounts are more handlers by ServeMux pattern (the web view at
	// "/view/"), behind the Host check only: they authenticate requests
	// themselves (see CheckToken) and check Origin as they need.
	Mounts map[string]http.Handler
	// OAuth, with an Issuer, also accepts JWT access tokens of that
	// authorization server (docs/TEAM.md); Tokens keep working beside it.
	OAuth OAuthOptions
}

// HTTPServer serves an MCP server over streamable HTTP.
type HTTPServer struct {
	opts      HTTPOptions
	logger    *slog.Logger
	tokens    tokenSet
	oauth     *oauthVerifier // nil without OAuthOptions.Issuer
	subjects  subjectIDs     // an OAuth subject's number, which its sessions belong to
	sessions  *sessions
	streamer  atomic.Pointer[mcpserver.StreamableHTTPServer] // nil until Attach
	mcp       atomic.Pointer[mcpserver.MCPServer]            // nil until Attach
	handler   http.Handler
	shutdownT time.Duration

	// "serving MCP over HTTP" is logged once the server both listens and
	// has its MCP server, whichever comes second.
	logMu    sync.Mutex
	listenOn net.Addr
	attached bool
}

// ErrNoTokenOffLoopback is returned when asked to serve without tokens on
// an address other hosts can reach.
var ErrNoTokenOffLoopback = errors.New("refusing to serve HTTP without a token on a non-loopback address")

// ErrOAuthPlainHTTP is returned when asked to accept OAuth access tokens
// over plain HTTP on an address other hosts can reach: the tokens would
// cross the network in clear.
var ErrOAuthPlainHTTP = errors.New("refusing OAuth over plain HTTP on a non-loopback address")

// NewHTTPServer checks opts and builds the transport. It refuses an empty
// token, and no token at all unless opts.Addr is a loopback address.
// Close (or Serve's end) stops its session sweeper.
//
// srv may be nil: the transport then answers /healthz at once, /readyz
// with 503, and /mcp with 503 "starting" until Attach gives it the MCP
// server (serve listens before it opens the store, and attaches the MCP
// server as soon as the store is open, while the first sync runs).
func NewHTTPServer(srv *mcpserver.MCPServer, opts HTTPOptions) (*HTTPServer, error) {
	for i, t := range opts.Tokens {
		if strings.TrimSpace(t.Value) == "" {
			return nil, fmt.Errorf("server: http token %d is empty", i+1)
		}
	}
	if len(opts.Tokens) == 0 && !opts.OAuth.enabled() && !isLoopbackAddr(opts.Addr) {
		return nil, fmt.Errorf("server: %w %q: set an HTTP token (http.tokens / VAULTGRAPH_HTTP_TOKENS), OAuth (http.oauth.issuer), or listen on 127.0.0.1", ErrNoTokenOffLoopback, opts.Addr)
	}
	if opts.OAuth.enabled() && opts.TLSCert == "" && !opts.OAuth.BehindProxy && opts.Addr != "" && !isLoopbackAddr(opts.Addr) {
		return nil, fmt.Errorf("server: %w %q: serve HTTPS (http.tls_cert and http.tls_key), or declare the TLS-terminating proxy in front with http.behind_proxy: true", ErrOAuthPlainHTTP, opts.Addr)
	}
	if (opts.TLSCert == "") != (opts.TLSKey == "") {
		return nil, errors.New("server: TLS needs both a certificate and a key (http.tls_cert and http.tls_key)")
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.SessionIdleTimeout <= 0 {
		opts.SessionIdleTimeout = DefaultSessionIdleTimeout
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.MaxSessionsPerToken <= 0 {
		opts.MaxSessionsPerToken = DefaultMaxSessionsPerToken
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	h := &HTTPServer{opts: opts, logger: logger, tokens: newTokenSet(opts.Tokens), shutdownT: shutdownTimeout}
	if opts.OAuth.enabled() {
		v, err := newOAuthVerifier(opts.OAuth, logger)
		if err != nil {
			return nil, err
		}
		h.oauth = v
		h.opts.OAuth = v.opts // with defaults
	}
	if opts.MaxSessionsPerClient <= 0 {
		opts.MaxSessionsPerClient = DefaultMaxSessionsPerClient
	}
	h.sessions = newSessions(opts.MaxSessions, opts.MaxSessionsPerToken, opts.MaxSessionsPerClient, opts.SessionIdleTimeout)
	h.sessions.onChange = func(open int) { opts.Metrics.SessionsOpen(open) }
	h.sessions.onOpen = opts.Metrics.SessionOpened
	if srv != nil {
		h.Attach(srv)
	}
	mux := http.NewServeMux()
	mux.HandleFunc(HealthPath, h.health)
	mux.HandleFunc(ReadyPath, h.ready)
	mux.Handle(MCPPath, h.checkHost(h.checkOrigin(h.authenticate(h.limitBody(h.guardMessages(h.requireWriteScope(http.HandlerFunc(h.serveMCP))))))))
	if h.oauth != nil {
		mux.Handle(ProtectedResourcePath, h.checkHost(http.HandlerFunc(h.protectedResource)))
		mux.Handle(ProtectedResourcePath+MCPPath, h.checkHost(http.HandlerFunc(h.protectedResource)))
	}
	for pattern, handler := range opts.Mounts {
		mux.Handle(pattern, h.checkHost(handler))
	}
	h.handler = mux
	return h, nil
}

// OpenSessions returns the number of open MCP sessions.
func (h *HTTPServer) OpenSessions() int { return h.sessions.open() }

// Attach starts serving srv at /mcp. Call it once.
func (h *HTTPServer) Attach(srv *mcpserver.MCPServer) {
	defer h.logServing(nil, true)
	h.mcp.Store(srv)
	h.streamer.Store(mcpserver.NewStreamableHTTPServer(srv,
		mcpserver.WithEndpointPath(MCPPath),
		mcpserver.WithHeartbeatInterval(heartbeatInterval),
		mcpserver.WithStreamableHTTPLogger(h.logger),
		// Sessions are issued, bound to their token and counted by
		// h.sessions; mcp-go's sweeper ends those idle for too long.
		mcpserver.WithSessionIdManagerResolver(h.sessions),
		mcpserver.WithSessionIdleTTL(h.opts.SessionIdleTimeout),
		// checkHost does the same with allowed hosts.
		mcpserver.WithDisableLocalhostProtection(true),
	))
}

// startingRetry is the Retry-After of a request that came before Attach.
const startingRetry = "5"

// serveMCP hands a request to the MCP server, or answers 503 while there
// is none yet.
func (h *HTTPServer) serveMCP(w http.ResponseWriter, r *http.Request) {
	st := h.streamer.Load()
	if st == nil {
		w.Header().Set("Retry-After", startingRetry)
		writeHTTPError(w, http.StatusServiceUnavailable, nil, CodeStarting,
			"vaultgraph is starting (opening its store); retry in a few seconds")
		return
	}
	st.ServeHTTP(w, r)
}

// Handler returns the HTTP handler: /mcp (authenticated, body-capped) and
// /healthz. Use it to mount the transport in tests or another server.
func (h *HTTPServer) Handler() http.Handler { return h.handler }

// ListenAndServe listens on opts.Addr and serves until ctx is cancelled,
// then shuts down gracefully.
func (h *HTTPServer) ListenAndServe(ctx context.Context) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", h.opts.Addr)
	if err != nil {
		return fmt.Errorf("server: listen on %s: %w", h.opts.Addr, err)
	}
	return h.Serve(ctx, ln)
}

// Close stops the session sweeper and ends every session; Serve does it
// when it returns. Tests that only use Handler call it.
func (h *HTTPServer) Close(ctx context.Context) {
	if st := h.streamer.Load(); st != nil {
		_ = st.Shutdown(ctx) // no http.Server of its own: ends sessions and the sweeper
	}
}

// Serve serves on ln until ctx is cancelled, then stops accepting, closes
// the MCP sessions' streams, and waits up to 10 s for in-flight requests.
// It returns nil after a shutdown caused by ctx. With opts.TLSCert and
// opts.TLSKey it serves HTTPS.
func (h *HTTPServer) Serve(ctx context.Context, ln net.Listener) error {
	if len(h.opts.Tokens) == 0 && h.oauth == nil && !isLoopbackAddr(ln.Addr().String()) {
		_ = ln.Close()
		return fmt.Errorf("server: %w %q", ErrNoTokenOffLoopback, ln.Addr())
	}
	srv := &http.Server{
		Handler:           h.handler,
		MaxHeaderBytes:    maxHeaderBytes,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          slog.NewLogLogger(h.logger.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	tls := h.opts.TLSCert != ""
	h.logServing(ln.Addr(), false)
	errc := make(chan error, 1)
	go func() {
		if tls {
			errc <- srv.ServeTLS(ln, h.opts.TLSCert, h.opts.TLSKey)
			return
		}
		errc <- srv.Serve(ln)
	}()
	select {
	case err := <-errc:
		h.Close(context.WithoutCancel(ctx))
		return fmt.Errorf("server: serve http: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), h.shutdownT)
	defer cancel()
	h.Close(shutdownCtx) // ends GET streams, which Shutdown would wait for
	err := srv.Shutdown(shutdownCtx)
	<-errc // http.ErrServerClosed
	if err != nil {
		return fmt.Errorf("server: shut down http: %w", err)
	}
	h.logger.Info("HTTP server stopped")
	return nil
}

// logServing records that the server listens on addr (non-nil) or has
// its MCP server (attached), and logs "serving MCP over HTTP" when both
// are true for the first time; before that, it logs that it listens.
func (h *HTTPServer) logServing(addr net.Addr, attached bool) {
	h.logMu.Lock()
	defer h.logMu.Unlock()
	wasServing := h.listenOn != nil && h.attached
	if addr != nil {
		h.listenOn = addr
	}
	h.attached = h.attached || attached
	if wasServing || h.listenOn == nil {
		return
	}
	if !h.attached {
		h.logger.Info("HTTP listening; MCP starts once the store is open", "addr", h.listenOn.String(), "health", HealthPath, "ready", ReadyPath)
		return
	}
	h.logger.Info("serving MCP over HTTP", "addr", h.listenOn.String(), "path", MCPPath, "auth", len(h.opts.Tokens) > 0 || h.oauth != nil, "oauth", h.opts.OAuth.Issuer, "tls", h.opts.TLSCert != "")
}

// authenticate requires a valid bearer token when tokens or OAuth are
// configured, and puts the token's principal in the request context: one
// of http.tokens, else (with OAuth) a JWT access token of the
// authorization server. A refused request gets 401 (403 for a token
// without the read scope, 503 while the authorization server's keys cannot
// be read) with a WWW-Authenticate challenge (naming the Protected
// Resource Metadata under OAuth) and a JSON-RPC error saying what to do;
// nothing about the server or its tokens.
func (h *HTTPServer) authenticate(next http.Handler) http.Handler {
	if len(h.opts.Tokens) == 0 && h.oauth == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, problem := h.principalOf(r)
		if problem != nil {
			h.refuse(w, r, problem)
			return
		}
		next.ServeHTTP(w, r.WithContext(withPrincipal(r.Context(), p)))
	})
}

// principalOf checks the request's bearer token.
func (h *HTTPServer) principalOf(r *http.Request) (principal, *authProblem) {
	unauthorized := func(msg string) (principal, *authProblem) {
		return principal{}, &authProblem{status: http.StatusUnauthorized, message: msg}
	}
	if len(r.Header.Get("Authorization")) > maxAuthorizationBytes {
		return principal{}, &authProblem{status: http.StatusUnauthorized, code: "invalid_token", message: "the Authorization header is too large; access tokens are at most 16 KiB"}
	}
	presented, problem := bearerToken(r)
	if problem != "" {
		if h.oauth != nil {
			problem = strings.Replace(problem, "with a token from the server's http.tokens", "with an access token of "+h.opts.OAuth.Issuer+" (see the resource_metadata of WWW-Authenticate)", 1)
		}
		return unauthorized(problem)
	}
	if len(h.opts.Tokens) > 0 {
		if p, ok := h.tokens.match(presented); ok {
			return p, nil
		}
	}
	if h.oauth == nil {
		return unauthorized("the token is not one this server accepts; check the token sent as Authorization: Bearer <token> (a read-only token is sent without its ro: prefix)")
	}
	id, bad := h.oauth.verify(r.Context(), presented)
	if bad != nil {
		return principal{}, bad
	}
	return principal{readOnly: id.readOnly, token: h.subjects.number(id.subject, len(h.opts.Tokens)), oauth: true,
		actor: core.Actor{ID: id.subject, Email: id.email, Name: id.name}}, nil
}

// refuse answers a request authenticate refused, logging it once.
func (h *HTTPServer) refuse(w http.ResponseWriter, r *http.Request, p *authProblem) {
	reason := map[int]string{http.StatusUnauthorized: "unauthorized", http.StatusForbidden: "insufficient_scope", http.StatusServiceUnavailable: "auth_unavailable"}[p.status]
	h.logger.Info("http request refused: "+reason, "remote", r.RemoteAddr, "method", r.Method, "reason", p.message)
	h.opts.Metrics.HTTPRefused(reason)
	if p.status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", startingRetry)
		writeHTTPError(w, p.status, nil, CodeUnauthorized, "unavailable: "+p.message)
		return
	}
	w.Header().Set("WWW-Authenticate", h.challenge(r, p))
	code, prefix := CodeUnauthorized, "unauthorized: "
	if p.status == http.StatusForbidden {
		code, prefix = CodeForbidden, "forbidden: "
	}
	writeHTTPError(w, p.status, nil, code, prefix+p.message)
}

// limitBody answers 413 to a declared oversized body and caps the read of
// any other, before anything buffers it.
func (h *HTTPServer) limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > h.opts.MaxBodyBytes {
			h.opts.Metrics.HTTPRefused("too_large")
			writeHTTPError(w, http.StatusRequestEntityTooLarge, nil, jsonrpc.CodeInvalidRequest, h.tooLargeMessage())
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes)
		next.ServeHTTP(w, r)
	})
}

// health answers /healthz: 200 {"status":"ok"} as long as the process
// answers HTTP at all (liveness: from the first moment, during the first
// sync, with the store down). Whether it can serve is /readyz's question.
func (h *HTTPServer) health(w http.ResponseWriter, _ *http.Request) {
	writeStatus(w, http.StatusOK, "ok")
}

// ready answers /readyz: 200 {"status":"ready"} when opts.Ready says so
// (the first sync is done and the store answers), else 503
// {"status":"not ready"}; the cause is logged, not shown.
func (h *HTTPServer) ready(w http.ResponseWriter, r *http.Request) {
	if h.opts.Ready != nil {
		if err := h.opts.Ready(r.Context()); err != nil {
			h.logger.Info("readiness check failed", "err", err)
			writeStatus(w, http.StatusServiceUnavailable, "not ready")
			return
		}
	}
	writeStatus(w, http.StatusOK, "ready")
}

func writeStatus(w http.ResponseWriter, code int, status string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"status": status})
}

// isLoopbackAddr reports whether the host of a host:port listen address
// is a loopback address or "localhost". An empty host (":8080") listens
// on every interface and is not loopback.
func isLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
