package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/internal/jsonrpc"
)

// JSON-RPC error codes the shim answers with when the remote server cannot
// (the implementation-defined server error range of JSON-RPC 2.0).
const (
	shimCodeUnreachable  = -32000 // the server did not answer at all
	shimCodeUnauthorized = -32001 // the server refused the token (401)
	shimCodeHTTPError    = -32002 // the server answered with an HTTP error
)

// RunShim is a stdio MCP server that relays every message to a remote
// vaultgraph over streamable HTTP, so that a desktop client that can only
// spawn processes reaches a shared server. It reads newline-delimited
// JSON-RPC on stdin and writes the server's responses, notifications and
// requests to stdout, one per line; nothing else is written to stdout.
//
// Requests are relayed concurrently; notifications and responses from the
// client are relayed in order. Each POST carries the bearer token (if any),
// the session ID the server issued at initialize, and the protocol-version
// and method headers the protocol asks for. When the server cannot be
// reached, refuses the token, or answers with an HTTP error, the request
// gets a JSON-RPC error saying so, the cause is logged, and the shim keeps
// running. After a failure to connect, or when the server no longer knows
// the session (it restarted), the shim opens a new session by replaying the
// client's initialize and notifications/initialized before the next
// message, without the client noticing. A message that fails on a
// kept-alive connection the restarted server closed is sent once more on
// a new connection.
//
// Server-to-client messages are relayed when they arrive on the stream of
// a request's answer; the shim opens no standalone GET stream, so an
// unsolicited notification (vaultgraph sends none) would not be relayed.
//
// RunShim returns when stdin ends (after in-flight requests finish) or ctx
// is cancelled; it fails at once on a URL that is not http(s)://host/...
func RunShim(ctx context.Context, serverURL, token string, stdin io.Reader, stdout io.Writer, logger *slog.Logger) error {
	return RunShimSignedIn(ctx, serverURL, token, nil, stdin, stdout, logger)
}

// ShimSignIn gives the shim OAuth access tokens (internal/oauthclient):
// Token the current one (ok is false when the person has not signed in),
// Refresh a new one after the server refused it, Login signs the person
// in (the browser), after which Token has one.
type ShimSignIn interface {
	Token(ctx context.Context) (string, error)
	Refresh(ctx context.Context) (string, error)
	Login(ctx context.Context, scopes ...string) error
	// StepUp signs in again for the scopes a 403 insufficient_scope
	// challenge (its WWW-Authenticate value) asks for.
	StepUp(ctx context.Context, challenge string) error
}

// shimLoginTimeout bounds how long a request waits for the person to
// finish signing in in the browser.
const shimLoginTimeout = 5 * time.Minute

// RunShimSignedIn is RunShim that, without a static token, sends the
// access tokens of signIn: refreshed after a 401, and, when there is none
// or it cannot be refreshed, signs the person in (the browser opens) while
// the request waits.
func RunShimSignedIn(ctx context.Context, serverURL, token string, signIn ShimSignIn, stdin io.Reader, stdout io.Writer, logger *slog.Logger) error {
	u, err := url.Parse(serverURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("shim: invalid server URL %q: want http(s)://host:port%s", serverURL, MCPPath)
	}
	if logger == nil {
		logger = slog.Default()
	}
	s := &shim{
		url:    u.String(),
		token:  token,
		signIn: signIn,
		client: &http.Client{}, // no overall timeout: answers may stream for long
		logger: logger,
		out:    &lineWriter{w: stdout},
	}
	return s.run(ctx, stdin)
}

type shim struct {
	url    string
	token  string
	signIn ShimSignIn // nil: only the static token
	client *http.Client

	loginMu sync.Mutex // one sign-in at a time
	logger  *slog.Logger
	out     *lineWriter

	mu          sync.Mutex
	sessionID   string          // issued by the server at initialize (legacy protocol)
	protocol    string          // negotiated at initialize (legacy protocol)
	initRequest json.RawMessage // the client's last initialize, replayed to reconnect
	initialized bool            // the client sent notifications/initialized
	stale       bool            // the session must be re-opened before the next message

	reconnectMu sync.Mutex // one reconnection at a time
	reconnects  atomic.Int64
	inflight    sync.WaitGroup
}

// envelope is what the shim reads of a JSON-RPC message.
type envelope struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
}

// isRequest: a method and an id (screen refused a null one).
func (e envelope) isRequest() bool { return e.Method != "" && len(e.ID) > 0 }

func (s *shim) run(ctx context.Context, stdin io.Reader) error {
	lines, readErr := jsonrpc.ReadLines(ctx, jsonrpc.NewReader(stdin, MaxStdioMessageBytes, answerTooLarge(s.out.write, s.logger)).Next)
	defer s.closeSession()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-readErr:
			s.inflight.Wait()
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("shim: read stdin: %w", err)
		case line := <-lines:
			s.handle(ctx, line)
		}
	}
}

// handle relays one message from the client.
func (s *shim) handle(ctx context.Context, line []byte) {
	if _, answer, why, ok := screen(line); !ok {
		// The server would refuse it too; answered here, without a round
		// trip, and never kept for a reconnection's replay.
		s.logger.Info("shim: message refused", "reason", why)
		if answer != nil {
			s.out.write(answer)
		}
		return
	}
	var env envelope
	_ = json.Unmarshal(line, &env) // screen found it an object with a string method
	switch {
	case env.Method == string(mcp.MethodInitialize):
		s.mu.Lock()
		s.initRequest = bytes.Clone(line)
		s.sessionID, s.protocol, s.initialized, s.stale = "", "", false, false
		s.mu.Unlock()
	case env.Method == string(mcp.MethodNotificationInitialized):
		s.mu.Lock()
		s.initialized = true
		s.mu.Unlock()
	}
	if env.isRequest() {
		s.inflight.Add(1)
		go func() {
			defer s.inflight.Done()
			s.relay(ctx, line, env)
		}()
		return
	}
	s.relay(ctx, line, env) // notifications and responses keep their order
}

// relay posts one message and writes what comes back, reconnecting first
// when the session is stale and once more when the server lost it.
func (s *shim) relay(ctx context.Context, line []byte, env envelope) {
	if env.Method != string(mcp.MethodInitialize) {
		s.reconnectIfStale(ctx)
	}
	for attempt := 0; ; attempt++ {
		sent := s.currentSession()
		resp, err := s.post(ctx, line, env, sent)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			s.markStale()
			if attempt == 0 && staleConnection(err) {
				// A kept-alive connection to a server that went away since:
				// retry once on a new connection (and a new session).
				s.client.CloseIdleConnections()
				s.reconnectIfStale(ctx)
				continue
			}
			s.logger.Warn("shim: vaultgraph server unreachable", "url", s.url, "method", env.Method, "err", err)
			s.answerError(env, shimCodeUnreachable, fmt.Sprintf("vaultgraph shim: cannot reach the vaultgraph server at %s (%v); is it running?", s.url, err))
			return
		}
		if resp.StatusCode == http.StatusNotFound && sent != "" && attempt == 0 && metaProtocolVersion(env.Params) == "" {
			// The server does not know the session: it restarted.
			drain(resp)
			s.logger.Info("shim: session lost, reconnecting", "url", s.url)
			s.markStale()
			s.reconnectIfStale(ctx)
			continue
		}
		if resp.StatusCode == http.StatusForbidden && s.token == "" && s.signIn != nil && attempt < 2 &&
			strings.Contains(resp.Header.Get("WWW-Authenticate"), "insufficient_scope") {
			challenge := resp.Header.Get("WWW-Authenticate")
			drain(resp)
			s.loginMu.Lock()
			lctx, cancel := context.WithTimeout(ctx, shimLoginTimeout)
			s.logger.Info("shim: the server asks for more scopes; opening the browser", "url", s.url)
			err := s.signIn.StepUp(lctx, challenge)
			cancel()
			s.loginMu.Unlock()
			if err != nil {
				s.answerError(env, shimCodeHTTPError, "vaultgraph shim: this call needs more access than you signed in for ("+err.Error()+")")
				return
			}
			continue
		}
		// A 401 naming resource metadata comes from a server that signs
		// people in with OAuth; any other 401 (a server of static tokens)
		// is reported as before.
		if resp.StatusCode == http.StatusUnauthorized && s.token == "" && s.signIn != nil && attempt < 2 &&
			strings.Contains(resp.Header.Get("WWW-Authenticate"), "resource_metadata=") {
			drain(resp)
			if err := s.renewSignIn(ctx, attempt == 0); err != nil {
				s.logger.Warn("shim: sign-in failed", "url", s.url, "err", err)
				s.answerError(env, shimCodeUnauthorized, "vaultgraph shim: not signed in to "+s.url+": "+err.Error()+"; run vaultgraph shim --login --url "+s.url)
				return
			}
			continue
		}
		s.deliver(resp, env)
		return
	}
}

// renewSignIn gets a new access token after a 401: a refresh first (when
// refresh is true), else a sign-in in the browser.
func (s *shim) renewSignIn(ctx context.Context, refresh bool) error {
	s.loginMu.Lock()
	defer s.loginMu.Unlock()
	if refresh {
		if _, err := s.signIn.Refresh(ctx); err == nil {
			return nil
		}
	}
	s.logger.Info("shim: the server asks for sign-in; opening the browser", "url", s.url)
	lctx, cancel := context.WithTimeout(ctx, shimLoginTimeout)
	defer cancel()
	return s.signIn.Login(lctx)
}

// bearer is the token a request carries: the static one, else the
// signed-in person's (none before the first sign-in).
func (s *shim) bearer(ctx context.Context) string {
	if s.token != "" || s.signIn == nil {
		return s.token
	}
	tok, err := s.signIn.Token(ctx)
	if err != nil {
		return ""
	}
	return tok
}

// post sends one message with the headers the transport needs.
func (s *shim) post(ctx context.Context, body []byte, env envelope, session string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if tok := s.bearer(ctx); tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	version := metaProtocolVersion(env.Params)
	if version != "" {
		// 2026-07-28 and later: no session; the version and the method
		// travel in headers as well as in the body (SEP-2243).
		req.Header.Set(mcp.HeaderProtocolVersion, version)
		for k, v := range mcp.StandardHeaders(version, mcp.MCPMethod(env.Method), env.Params) {
			req.Header.Set(k, v)
		}
	} else {
		s.mu.Lock()
		protocol := s.protocol
		s.mu.Unlock()
		if session != "" && env.Method != string(mcp.MethodInitialize) {
			req.Header.Set(mcp.HeaderSessionID, session)
		}
		if protocol != "" && env.Method != string(mcp.MethodInitialize) {
			req.Header.Set(mcp.HeaderProtocolVersion, protocol)
		}
	}
	return s.client.Do(req)
}

// deliver writes the messages of an HTTP answer to stdout and, for a
// request, makes sure the client gets an answer.
func (s *shim) deliver(resp *http.Response, env envelope) {
	defer drain(resp)
	if env.Method == string(mcp.MethodInitialize) && resp.StatusCode == http.StatusOK {
		if id := resp.Header.Get(mcp.HeaderSessionID); id != "" {
			s.mu.Lock()
			s.sessionID = id
			s.mu.Unlock()
		}
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		s.logger.Warn("shim: the vaultgraph server refused the token", "url", s.url)
		s.answerError(env, shimCodeUnauthorized, "vaultgraph shim: the server refused the bearer token (HTTP 401); check the token the shim was given (VAULTGRAPH_TOKEN, or the variable --token-env names)")
		return
	case resp.StatusCode == http.StatusAccepted:
		if env.isRequest() {
			s.answerError(env, shimCodeHTTPError, "vaultgraph shim: the server accepted the request but sent no answer")
		}
		return
	}
	answered := false
	emit := func(msg []byte) {
		if s.isAnswerTo(msg, env) {
			answered = true
		}
		s.out.write(msg)
	}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mediaType {
	case "text/event-stream":
		readSSE(resp.Body, emit)
	case "application/json":
		body, err := io.ReadAll(resp.Body)
		if err == nil && json.Valid(body) && len(bytes.TrimSpace(body)) > 0 {
			emit(body)
		}
	}
	if answered || !env.isRequest() {
		if resp.StatusCode >= 300 && !env.isRequest() {
			s.logger.Warn("shim: the vaultgraph server refused a message", "method", env.Method, "status", resp.StatusCode)
		}
		return
	}
	if resp.StatusCode >= 300 {
		s.logger.Warn("shim: the vaultgraph server answered with an HTTP error", "method", env.Method, "status", resp.StatusCode)
		msg := fmt.Sprintf("vaultgraph shim: the server answered HTTP %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
		if resp.StatusCode == http.StatusNotFound {
			msg += fmt.Sprintf(" at %s; the URL must be the server's %s endpoint", s.url, MCPPath)
		}
		s.answerError(env, shimCodeHTTPError, msg)
		return
	}
	s.answerError(env, shimCodeHTTPError, "vaultgraph shim: the server closed the connection before answering")
}

// isAnswerTo reports whether msg is the response to the request env, and
// records what an initialize response negotiated.
func (s *shim) isAnswerTo(msg []byte, env envelope) bool {
	if !env.isRequest() {
		return false
	}
	var got envelope
	if json.Unmarshal(msg, &got) != nil || got.Method != "" || !jsonrpc.SameID(got.ID, env.ID) {
		return false
	}
	if env.Method == string(mcp.MethodInitialize) && len(got.Result) > 0 {
		var res struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(got.Result, &res) == nil {
			s.mu.Lock()
			s.protocol = res.ProtocolVersion
			s.mu.Unlock()
		}
	}
	return true
}

func (s *shim) currentSession() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessionID
}

func (s *shim) markStale() {
	s.mu.Lock()
	s.stale = true
	s.mu.Unlock()
}

// reconnectIfStale opens a new session when the last one may be gone, by
// replaying the client's initialize (under an ID of the shim's own, its
// answer not relayed) and notifications/initialized. A client on the
// sessionless protocol never sent initialize: there is nothing to replay.
func (s *shim) reconnectIfStale(ctx context.Context) {
	s.reconnectMu.Lock()
	defer s.reconnectMu.Unlock()
	s.mu.Lock()
	stale, initReq, initialized := s.stale, s.initRequest, s.initialized
	s.mu.Unlock()
	if !stale {
		return
	}
	if initReq == nil {
		s.mu.Lock()
		s.stale = false
		s.mu.Unlock()
		return
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal(initReq, &msg) != nil {
		return
	}
	msg["id"], _ = json.Marshal(fmt.Sprintf("vaultgraph-shim-reconnect-%d", s.reconnects.Add(1)))
	body, _ := json.Marshal(msg)
	env := envelope{Method: string(mcp.MethodInitialize), ID: msg["id"], Params: msg["params"]}
	resp, err := s.post(ctx, body, env, "")
	if err != nil {
		return // still down; the caller's request reports it
	}
	defer drain(resp)
	if resp.StatusCode != http.StatusOK {
		return
	}
	session := resp.Header.Get(mcp.HeaderSessionID)
	protocol := ""
	collect := func(m []byte) {
		var got struct {
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"result"`
		}
		if json.Unmarshal(m, &got) == nil && got.Result.ProtocolVersion != "" {
			protocol = got.Result.ProtocolVersion
		}
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/event-stream" {
		readSSE(resp.Body, collect)
	} else if b, err := io.ReadAll(resp.Body); err == nil {
		collect(b)
	}
	s.mu.Lock()
	s.sessionID, s.protocol, s.stale = session, protocol, false
	s.mu.Unlock()
	if initialized {
		note := []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		if r, err := s.post(ctx, note, envelope{Method: string(mcp.MethodNotificationInitialized)}, session); err == nil {
			drain(r)
		}
	}
	s.logger.Info("shim: reconnected to the vaultgraph server", "url", s.url)
}

// closeSessionTimeout bounds the goodbye to a server that may be gone.
const closeSessionTimeout = 5 * time.Second

// closeSession ends the server-side session (best effort), as a client
// that goes away should.
func (s *shim) closeSession() {
	s.mu.Lock()
	session, protocol := s.sessionID, s.protocol
	s.mu.Unlock()
	if session == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeSessionTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, s.url, nil)
	if err != nil {
		return
	}
	req.Header.Set(mcp.HeaderSessionID, session)
	if protocol != "" {
		req.Header.Set(mcp.HeaderProtocolVersion, protocol)
	}
	if tok := s.bearer(ctx); tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	if resp, err := s.client.Do(req); err == nil {
		drain(resp)
	}
}

// answerError answers a request with a JSON-RPC error; a notification or
// response from the client gets no answer, the failure is only logged.
func (s *shim) answerError(env envelope, code int, msg string) {
	if !env.isRequest() {
		return
	}
	s.out.write(jsonrpc.ErrorLine(env.ID, code, msg))
}

// staleConnection reports whether err is how a kept-alive connection
// fails after the server closed it (it restarted): the request most likely
// never reached a server.
func staleConnection(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		strings.Contains(err.Error(), "server closed idle connection")
}

// metaProtocolVersion returns the protocol version a message declares in
// params._meta, which only clients on 2026-07-28 or later send.
func metaProtocolVersion(params json.RawMessage) string {
	if len(params) == 0 {
		return ""
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	var v string
	if json.Unmarshal(p.Meta[mcp.MetaKeyProtocolVersion], &v) != nil {
		return ""
	}
	return v
}

// readSSE calls emit with the data of each event of an SSE stream until it
// ends. Multi-line data is joined with newlines, as the SSE format says.
func readSSE(r io.Reader, emit func([]byte)) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20) // an answer may hold a long note
	var data []string
	flush := func() {
		if len(data) > 0 {
			emit([]byte(strings.Join(data, "\n")))
			data = data[:0]
		}
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	flush()
}

// drain reads what is left of a body, so the connection can be reused,
// and closes it.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	_ = resp.Body.Close()
}

// lineWriter writes one compact JSON message per line, whole lines only.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) write(msg []byte) {
	var buf bytes.Buffer
	if json.Compact(&buf, msg) != nil {
		return // not JSON: never put anything else on stdout
	}
	buf.WriteByte('\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.w.Write(buf.Bytes())
}
