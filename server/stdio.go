package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/internal/jsonrpc"
	"github.com/vaultgraph/vaultgraph/tools"
)

// maxStdioRequests bounds the requests served at once over stdio; reading
// stdin waits while that many are running, so a client that floods the
// server gets backpressure instead of unbounded goroutines.
const maxStdioRequests = 16

// ServeStdio serves srv over newline-delimited JSON-RPC on stdin/stdout
// until stdin ends or ctx is cancelled. Only JSON-RPC messages are written
// to stdout; the transport's own errors go to logger (nil: slog.Default()).
// A message (line) over MaxStdioMessageBytes is skipped and answered with
// a JSON-RPC error.
//
// This is vaultgraph's own loop around srv.HandleMessage, not mcp-go's
// StdioServer, for two measured reasons (docs/BENCHMARKS.md): mcp-go's
// decodes every incoming line about six times to see whether it answers a
// request of the server's (sampling, roots, elicitation: vaultgraph sends
// none), and it encodes a tool result through a map and then compacts the
// pre-encoded JSON twice more, which made the server's share of a 40 KB
// get_node answer 0.48 ms. Here a tool result is written in one pass
// (appendToolResult, into a pooled line buffer); every other message goes
// through encoding/json.
// Requests run concurrently, up to maxStdioRequests, each on the
// goroutine that read it (stdioLoop.lead); notifications are handled in
// order as they are read.
func ServeStdio(ctx context.Context, srv *mcpserver.MCPServer, stdin io.Reader, stdout io.Writer, logger *slog.Logger) error {
	return ServeStream(ctx, srv, stdin, stdout, "stdio", logger)
}

// ServeStream is ServeStdio on any stream, as the MCP session sessionID,
// which must be unique among srv's sessions: the owning process of a
// state folder serves each local connection this way (package owner).
func ServeStream(ctx context.Context, srv *mcpserver.MCPServer, stdin io.Reader, stdout io.Writer, sessionID string, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.Default()
	}
	session := newStdioSession(sessionID)
	if err := srv.RegisterSession(ctx, session); err != nil {
		return fmt.Errorf("stdio: register session: %w", err)
	}
	defer srv.UnregisterSession(context.WithoutCancel(ctx), session.SessionID())
	ctx, cancel := context.WithCancel(srv.WithContext(ctx, session))
	defer cancel()

	growPipe(stdout)
	out := newStdioWriter(stdout, session.notifications, logger)
	defer out.stop() // after the requests below: their answers are written first

	l := &stdioLoop{ctx: ctx, srv: srv, out: out, logger: logger,
		next:  jsonrpc.NewReader(stdin, MaxStdioMessageBytes, answerTooLarge(out.writeBytes, logger)).Next,
		slots: make(chan struct{}, maxStdioRequests), ended: make(chan error, 1),
		leadNext: make(chan struct{})}
	defer l.close()
	go l.lead()
	select {
	case <-ctx.Done():
		return nil
	case err := <-l.ended:
		if err == io.EOF {
			return nil
		}
		return fmt.Errorf("stdio: read: %w", err)
	}
}

// stdioLoop reads and serves the lines of one stream. One goroutine at a
// time reads (the leader, see lead); each request is served by the
// goroutine that read it.
type stdioLoop struct {
	ctx    context.Context
	srv    *mcpserver.MCPServer
	out    *stdioWriter
	logger *slog.Logger
	next   func() ([]byte, error) // the next line; one caller at a time
	slots  chan struct{}          // requests being served, up to maxStdioRequests
	ended  chan error             // the read error that ended reading (io.EOF at the end)
	// leadNext hands the reading to a goroutine that has served its
	// request and waits for more (see handOver).
	leadNext chan struct{}

	mu      sync.Mutex
	closed  bool           // close was called: no request starts any more
	running sync.WaitGroup // requests being served
}

// lead reads lines until one is a request, then hands the reading over to
// another goroutine (handOver) and serves that request itself, then waits
// to read again (awaitLead). A request so runs on
// the thread that read it: when the reader handed each line to another
// goroutine and went back to read, the line waited for a second thread to
// be woken to run it, which on a busy machine was a good part of a read
// tool's time through the pipe (docs/BENCHMARKS.md). Notifications are
// handled here, in order, before the next line is read. Reading waits
// while maxStdioRequests requests are being served, so a client that
// floods the server gets backpressure instead of unbounded goroutines.
// A read from stdin cannot be interrupted: a leader still reading when
// the stream is closed returns when its read does.
func (l *stdioLoop) lead() {
	for {
		line, err := l.next()
		if l.ctx.Err() != nil {
			return
		}
		if id, ok := l.take(line); ok {
			select {
			case l.slots <- struct{}{}:
			case <-l.ctx.Done():
				return
			}
			if !l.begin() {
				<-l.slots
				return
			}
			if err != nil {
				l.end(err)
			} else {
				l.handOver()
			}
			l.serve(line, id)
			if err != nil || !l.awaitLead() {
				return
			}
			continue
		}
		if err != nil {
			l.end(err)
			return
		}
	}
}

// handOver makes another goroutine the reader: one that has served its
// request and waits (awaitLead), or a new one. A goroutine so serves
// request after request, its stack grown to what serving takes: a new
// goroutine for every request grew its stack from the smallest size each
// time, copying it twice or three times (~10 µs of a get_node depth=1
// call, docs/BENCHMARKS.md).
func (l *stdioLoop) handOver() {
	select {
	case l.leadNext <- struct{}{}:
	default:
		go l.lead()
	}
}

// awaitLead waits, after a request was served, until the reading is
// handed to this goroutine (true) or the stream's context ends (false).
func (l *stdioLoop) awaitLead() bool {
	select {
	case <-l.leadNext:
		return true
	case <-l.ctx.Done():
		return false
	}
}

// take looks at one line: a request is returned with its id for the
// caller to serve; anything else is dealt with here (a notification
// handled, a bad message answered or ignored).
func (l *stdioLoop) take(line []byte) (json.RawMessage, bool) {
	if len(bytes.TrimSpace(line)) == 0 {
		return nil, false
	}
	head, answer, why, ok := screen(line)
	switch {
	case !ok:
		l.logger.Info("stdio: message refused", "method", head.Method, "reason", why)
		if answer != nil {
			l.out.writeBytes(answer)
		}
		return nil, false
	case head.Kind == jsonrpc.Response: // the server sends no requests
		l.logger.Debug("stdio: message without a method ignored", "bytes", len(line))
		return nil, false
	}
	if head.Kind == jsonrpc.Notification {
		handleStdio(l.ctx, l.srv, line, nil, l.out, l.logger)
		return nil, false
	}
	return head.ID, true
}

// serve handles one request, whose slot and place in running are taken.
func (l *stdioLoop) serve(line, id json.RawMessage) {
	defer func() {
		<-l.slots
		l.running.Done()
	}()
	handleStdio(l.ctx, l.srv, line, id, l.out, l.logger)
}

// begin counts a request as running, unless the loop is closed.
func (l *stdioLoop) begin() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	l.running.Add(1)
	return true
}

// end reports the read error that stopped the reading.
func (l *stdioLoop) end(err error) {
	select {
	case l.ended <- err:
	default:
	}
}

// close lets no further request start and waits for those running.
func (l *stdioLoop) close() {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.running.Wait()
}

// handleStdio runs one message through srv and writes its answer, if any.
// A panic becomes an internal error for the request's id instead of ending
// the process. A tool's answer is encoded into a buffer of the call's own
// (tools.WithAnswerBuffer), given back once its line is encoded.
func handleStdio(ctx context.Context, srv *mcpserver.MCPServer, line, id json.RawMessage, out *stdioWriter, logger *slog.Logger) {
	ctx, release := tools.WithAnswerBuffer(ctx)
	var written *mcp.CallToolResult
	defer func() { release(written) }() // after the answer's line is encoded (below and in the recovery)
	defer func() {
		if r := recover(); r != nil {
			logger.Error("stdio: panic while serving a message", "panic", r, "stack", string(debug.Stack()))
			if id != nil {
				var rid any
				_ = json.Unmarshal(id, &rid)
				out.write(mcp.NewJSONRPCError(mcp.NewRequestId(rid), mcp.INTERNAL_ERROR, fmt.Sprintf("internal error: %v", r), nil))
			}
		}
	}()
	if res := srv.HandleMessage(ctx, line); res != nil {
		out.write(res)
		if resp, ok := res.(mcp.JSONRPCResponse); ok {
			written, _ = resp.Result.(*mcp.CallToolResult)
		}
	}
}

// stdioWriter writes whole messages to stdout, one line each, one at a
// time, from one goroutine (run) that takes both the server's
// notifications and the answers. Before it writes an answer it writes
// every notification already queued: a tool's progress notifications,
// queued while it ran, so reach the client before the tool's result, as
// the spec wants (a progress token is dead once its request is answered).
// The answers are encoded by the goroutines that produce them.
type stdioWriter struct {
	w       io.Writer
	logger  *slog.Logger
	notes   <-chan mcp.JSONRPCNotification
	answers chan *[]byte
	stopped chan struct{} // closed by stop: run drains and returns
	done    chan struct{} // closed when run has returned
}

func newStdioWriter(w io.Writer, notes <-chan mcp.JSONRPCNotification, logger *slog.Logger) *stdioWriter {
	s := &stdioWriter{w: w, logger: logger, notes: notes, answers: make(chan *[]byte, maxStdioRequests),
		stopped: make(chan struct{}), done: make(chan struct{})}
	go s.run()
	return s
}

func (s *stdioWriter) run() {
	defer close(s.done)
	for {
		select {
		case n := <-s.notes:
			s.writeNote(n)
		case b := <-s.answers:
			s.drainNotes()
			s.writeLine(b)
		case <-s.stopped:
			for {
				select {
				case b := <-s.answers:
					s.drainNotes()
					s.writeLine(b)
				default:
					s.drainNotes()
					return
				}
			}
		}
	}
}

// stop writes what is queued and ends run; later writes are dropped.
func (s *stdioWriter) stop() {
	close(s.stopped)
	<-s.done
}

// drainNotes writes the notifications queued now.
func (s *stdioWriter) drainNotes() {
	for {
		select {
		case n := <-s.notes:
			s.writeNote(n)
		default:
			return
		}
	}
}

func (s *stdioWriter) writeNote(n mcp.JSONRPCNotification) {
	buf := lineBuffers.Get().(*[]byte)
	b, err := encodeMessage((*buf)[:0], n)
	*buf = b
	if err != nil {
		s.logger.Error("stdio: encode a notification", "err", err)
		putLine(buf)
		return
	}
	s.writeLine(buf)
}

// writeLine writes one encoded line and gives its buffer back.
func (s *stdioWriter) writeLine(buf *[]byte) {
	if _, err := s.w.Write(*buf); err != nil {
		s.logger.Error("stdio: write an answer", "err", err)
	}
	putLine(buf)
}

// queue hands an encoded line to run, unless the writer has stopped.
func (s *stdioWriter) queue(buf *[]byte) {
	select {
	case s.answers <- buf:
	case <-s.stopped:
		putLine(buf)
	}
}

// writeBytes queues a ready-made line (an error answer) as it is.
func (s *stdioWriter) writeBytes(p []byte) {
	buf := lineBuffers.Get().(*[]byte)
	*buf = append((*buf)[:0], p...)
	s.queue(buf)
}

// lineBuffers hold answers between their encoding and their write: a
// read tool's answer is tens of KB, and a new buffer for each was most of
// what a call left for the garbage collector.
var lineBuffers = sync.Pool{New: func() any { return new([]byte) }}

func putLine(buf *[]byte) {
	if cap(*buf) <= 1<<20 { // one huge answer does not pin its buffer
		*buf = (*buf)[:0]
		lineBuffers.Put(buf)
	}
}

// write encodes msg (in the caller's goroutine) and queues it as one line.
func (s *stdioWriter) write(msg mcp.JSONRPCMessage) {
	buf := lineBuffers.Get().(*[]byte)
	b, err := encodeMessage((*buf)[:0], msg)
	*buf = b
	if err != nil {
		s.logger.Error("stdio: encode an answer", "err", err)
		putLine(buf)
		return
	}
	s.queue(buf)
}

// stdioSession is the one client of a stdio server.
type stdioSession struct {
	id            string
	notifications chan mcp.JSONRPCNotification
	initialized   bool
	mu            sync.Mutex
	logLevel      mcp.LoggingLevel
	clientInfo    mcp.Implementation
	clientCaps    mcp.ClientCapabilities
}

func newStdioSession(id string) *stdioSession {
	return &stdioSession{id: id, notifications: make(chan mcp.JSONRPCNotification, 100), logLevel: mcp.LoggingLevelError}
}

func (s *stdioSession) SessionID() string { return s.id }

// OrderedNotifications: the stdio writer writes every notification queued
// during a request before the request's answer (tools.Progress needs no
// settling here).
func (s *stdioSession) OrderedNotifications() {}

func (s *stdioSession) NotificationChannel() chan<- mcp.JSONRPCNotification {
	return s.notifications
}

func (s *stdioSession) Initialize() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.initialized = true
}

func (s *stdioSession) Initialized() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.initialized
}

func (s *stdioSession) SetLogLevel(level mcp.LoggingLevel) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.logLevel = level
}

func (s *stdioSession) GetLogLevel() mcp.LoggingLevel {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logLevel
}

func (s *stdioSession) GetClientInfo() mcp.Implementation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientInfo
}

func (s *stdioSession) SetClientInfo(info mcp.Implementation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clientInfo = info
}

func (s *stdioSession) GetClientCapabilities() mcp.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientCaps
}

func (s *stdioSession) SetClientCapabilities(caps mcp.ClientCapabilities) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clientCaps = caps
}

var (
	_ mcpserver.SessionWithLogging    = (*stdioSession)(nil)
	_ mcpserver.SessionWithClientInfo = (*stdioSession)(nil)
	_ tools.OrderedNotifications      = (*stdioSession)(nil)
)
