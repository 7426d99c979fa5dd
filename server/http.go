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
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"
)

// HTTP paths.
const (
	MCPPath    = "/mcp"     // streamable HTTP endpoint
	HealthPath = "/healthz" // liveness, no auth
)

// HTTP limits. Each has a reason; none is a tuning knob users need.
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
	// Health, when set, is asked by /healthz; an error answers 503.
	Health func(context.Context) error
	// Logger receives transport logs; nil means slog.Default().
	Logger *slog.Logger
}

// HTTPServer serves an MCP server over streamable HTTP.
type HTTPServer struct {
	opts      HTTPOptions
	logger    *slog.Logger
	tokens    tokenSet
	streamer  *mcpserver.StreamableHTTPServer
	handler   http.Handler
	shutdownT time.Duration
}

// ErrNoTokenOffLoopback is returned when asked to serve without tokens on
// an address other hosts can reach.
var ErrNoTokenOffLoopback = errors.New("refusing to serve HTTP without a token on a non-loopback address")

// NewHTTPServer checks opts and builds the transport. It refuses an empty
// token, and no token at all unless opts.Addr is a loopback address.
func NewHTTPServer(srv *mcpserver.MCPServer, opts HTTPOptions) (*HTTPServer, error) {
	for i, t := range opts.Tokens {
		if strings.TrimSpace(t.Value) == "" {
			return nil, fmt.Errorf("server: http token %d is empty", i+1)
		}
	}
	if len(opts.Tokens) == 0 && !isLoopbackAddr(opts.Addr) {
		return nil, fmt.Errorf("server: %w %q: set an HTTP token (http.tokens / VAULTGRAPH_HTTP_TOKENS) or listen on 127.0.0.1", ErrNoTokenOffLoopback, opts.Addr)
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	h := &HTTPServer{opts: opts, logger: logger, tokens: newTokenSet(opts.Tokens), shutdownT: shutdownTimeout}
	h.streamer = mcpserver.NewStreamableHTTPServer(srv,
		mcpserver.WithEndpointPath(MCPPath),
		mcpserver.WithHeartbeatInterval(heartbeatInterval),
		mcpserver.WithStreamableHTTPLogger(logger),
	)
	mux := http.NewServeMux()
	mux.HandleFunc(HealthPath, h.health)
	mux.Handle(MCPPath, h.limitBody(h.authenticate(h.streamer)))
	h.handler = mux
	return h, nil
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

// Serve serves on ln until ctx is cancelled, then stops accepting, closes
// the MCP sessions' streams, and waits up to 10 s for in-flight requests.
// It returns nil after a shutdown caused by ctx.
func (h *HTTPServer) Serve(ctx context.Context, ln net.Listener) error {
	if len(h.opts.Tokens) == 0 && !isLoopbackAddr(ln.Addr().String()) {
		_ = ln.Close()
		return fmt.Errorf("server: %w %q", ErrNoTokenOffLoopback, ln.Addr())
	}
	srv := &http.Server{
		Handler:           h.handler,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          slog.NewLogLogger(h.logger.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	h.logger.Info("serving MCP over HTTP", "addr", ln.Addr().String(), "path", MCPPath, "auth", len(h.opts.Tokens) > 0)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("server: serve http: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), h.shutdownT)
	defer cancel()
	h.streamer.CloseSessions(shutdownCtx) // ends GET streams, which Shutdown would wait for
	err := srv.Shutdown(shutdownCtx)
	<-errc // http.ErrServerClosed
	if err != nil {
		return fmt.Errorf("server: shut down http: %w", err)
	}
	h.logger.Info("HTTP server stopped")
	return nil
}

// authenticate requires a valid bearer token when tokens are configured,
// and puts the token's principal in the request context. A missing or
// wrong token gets 401 with an empty body: nothing about the server.
func (h *HTTPServer) authenticate(next http.Handler) http.Handler {
	if len(h.opts.Tokens) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := h.tokens.match(bearerToken(r))
		if !ok {
			h.logger.Info("http request refused: missing or unknown bearer token", "remote", r.RemoteAddr, "method", r.Method)
			w.Header().Set("WWW-Authenticate", `Bearer realm="vaultgraph"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(withPrincipal(r.Context(), p)))
	})
}

// limitBody answers 413 to a declared oversized body and caps the read of
// any other, before the MCP handler buffers it.
func (h *HTTPServer) limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > h.opts.MaxBodyBytes {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes)
		next.ServeHTTP(w, r)
	})
}

// health answers /healthz: 200 {"status":"ok"}, or 503 with a generic
// status when opts.Health fails (the cause is logged, not shown).
func (h *HTTPServer) health(w http.ResponseWriter, r *http.Request) {
	status, code := "ok", http.StatusOK
	if h.opts.Health != nil {
		if err := h.opts.Health(r.Context()); err != nil {
			h.logger.Warn("health check failed", "err", err)
			status, code = "unavailable", http.StatusServiceUnavailable
		}
	}
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
