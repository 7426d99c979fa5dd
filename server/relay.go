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
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/internal/jsonrpc"
)

// MethodHandover is the notification an owning process sends on a
// connection it closes on purpose (it is exiting): every request it read
// from that connection has been answered, so a request still unanswered
// was never run and the relay sends it again to the next owner. A
// connection that ends without it (the owner was killed) may have run
// them: they are answered with an error instead.
const MethodHandover = "notifications/vaultgraph/handover"

// relayCodeLost is the JSON-RPC error a request gets when the process
// serving it died before answering (the implementation-defined range).
const relayCodeLost = -32003

// relayIDPrefix marks the requests the relay makes itself (the replayed
// initialize, log level and subscriptions): their answers are not the
// client's.
const relayIDPrefix = "vaultgraph-relay-"

// relayInitWait bounds the wait for the answer to a replayed initialize.
const relayInitWait = 30 * time.Second

// Connect returns a connection to the process that serves the vault now
// (another process's socket, or this process's own server), blocking until
// there is one or ctx ends.
type Connect func(ctx context.Context) (io.ReadWriteCloser, error)

// RunRelay is a stdio MCP server that hands every message to a backend
// connection of newline-delimited JSON-RPC and writes what comes back to
// stdout: the stdio front of a process that shares a vault's store with
// others (package owner). When the backend goes away (its process exited
// or was killed), the relay connects again through connect (which may
// make this process the owner) and re-opens the session on the client's
// behalf: it replays the client's initialize, notifications/initialized,
// its last logging/setLevel and its resource subscriptions, swallowing
// their answers. Requests the old backend left unanswered are sent again
// after a hand-over (MethodHandover) and answered with error -32003
// otherwise, so a write is never run twice.
//
// RunRelay returns when stdin ends (after the requests in flight are
// answered, or lost) or ctx ends.
func RunRelay(ctx context.Context, connect Connect, stdin io.Reader, stdout io.Writer, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.Default()
	}
	r := &relay{
		connect:  connect,
		out:      &relayOut{w: stdout},
		logger:   logger,
		inflight: map[string]*pending{},
		subs:     map[string][]byte{},
		own:      map[string]chan json.RawMessage{},
		up:       make(chan struct{}),
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	r.fail = cancel
	go r.reconnect(ctx)
	defer r.close()
	failed := func() error {
		if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
		return nil
	}

	lines, readErr := jsonrpc.ReadLines(ctx, jsonrpc.NewReader(stdin, MaxStdioMessageBytes, answerTooLarge(r.out.write, logger)).Next)
	for {
		select {
		case <-ctx.Done():
			return failed()
		case err := <-readErr:
			r.drain(ctx)
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("relay: read stdin: %w", err)
		case line := <-lines:
			r.fromClient(ctx, line)
		}
	}
}

type relay struct {
	connect Connect
	fail    context.CancelCauseFunc // ends the relay with an error
	out     *relayOut
	logger  *slog.Logger

	mu       sync.Mutex
	conn     io.ReadWriteCloser  // nil while (re)connecting
	gen      int                 // the connection's number
	up       chan struct{}       // closed once conn is set and the session replayed
	inflight map[string]*pending // the client's requests not answered yet, by ID
	settled  *sync.Cond          // signalled when inflight empties; nil until drain
	init     []byte              // the client's initialize
	ready    bool                // the client sent notifications/initialized
	level    []byte              // the client's last logging/setLevel
	subs     map[string][]byte   // resources/subscribe by URI
	own      map[string]chan json.RawMessage
	ownSeq   int
	closed   bool
}

// pending is a request of the client's waiting for its answer.
type pending struct {
	line []byte
	gen  int // the connection it was sent on; 0: not sent yet
	// sub is the URI of a resources/subscribe, recorded for replay when
	// the owner accepts it (a refused one is not: the owner's per-session
	// cap then bounds what the relay keeps).
	sub string
}

// message is what the relay reads of a line from the owner.
type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
}

// fromClient records what the session needs replayed and sends the line.
func (r *relay) fromClient(ctx context.Context, line []byte) {
	line = bytes.TrimRight(line, "\r\n")
	m, answer, why, ok := screen(line)
	if !ok {
		// Answered here, as the owner would: never recorded for replay.
		r.logger.Info("relay: message refused", "method", m.Method, "reason", why)
		if answer != nil {
			r.out.write(answer)
		}
		return
	}
	sub := ""
	r.mu.Lock()
	switch m.Method {
	case string(mcp.MethodInitialize):
		r.init, r.ready, r.level = bytes.Clone(line), false, nil
		clear(r.subs)
	case string(mcp.MethodNotificationInitialized):
		r.ready = true
	case string(mcp.MethodSetLogLevel):
		r.level = bytes.Clone(line)
	case string(mcp.MethodResourcesSubscribe), string(mcp.MethodResourcesUnsubscribe):
		var p struct {
			Params struct {
				URI string `json:"uri"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &p) == nil {
			if m.Method == string(mcp.MethodResourcesSubscribe) {
				sub = p.Params.URI // kept for replay once the owner accepts it
			} else {
				delete(r.subs, p.Params.URI)
			}
		}
	}
	id := ""
	if m.Kind == jsonrpc.Request {
		id = string(m.ID)
		r.inflight[id] = &pending{line: bytes.Clone(line), sub: sub}
	}
	r.mu.Unlock()
	r.send(ctx, id, line)
}

// send writes line to the backend, waiting for one while reconnecting;
// id is the request's ("" for other messages). A failed write is left to
// the connection's reader, which sees the same end: the request stays in
// flight and is resent or answered then.
func (r *relay) send(ctx context.Context, id string, line []byte) {
	for {
		r.mu.Lock()
		conn, up := r.conn, r.up
		if conn == nil {
			r.mu.Unlock()
			select {
			case <-up:
				continue
			case <-ctx.Done():
				return
			}
		}
		if id != "" {
			p := r.inflight[id]
			if p == nil { // answered as lost meanwhile
				r.mu.Unlock()
				return
			}
			p.gen = r.gen
		}
		r.mu.Unlock()
		_, _ = conn.Write(append(bytes.Clone(line), '\n'))
		return
	}
}

// reconnect connects (again), replays the session and resends what a
// hand-over left unanswered.
func (r *relay) reconnect(ctx context.Context) {
	conn, err := r.connect(ctx)
	if err != nil {
		if ctx.Err() == nil {
			r.fail(fmt.Errorf("relay: cannot reach the vault's store: %w", err))
		}
		return
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		_ = conn.Close()
		return
	}
	r.gen++
	gen := r.gen
	init, ready, level := r.init, r.ready, r.level
	subs := make([][]byte, 0, len(r.subs))
	for _, s := range r.subs {
		subs = append(subs, s)
	}
	// Requests an old connection handed over unanswered go again, on
	// this one; those not sent yet wait in send for this connection.
	var resend [][]byte
	for _, p := range r.inflight {
		if p.gen != 0 {
			p.gen = gen
			resend = append(resend, p.line)
			if bytes.Equal(p.line, init) {
				init = nil // the client's own initialize is resent: no replay
			}
		}
	}
	r.mu.Unlock()

	graceful := &handover{gone: make(chan struct{})}
	go r.fromBackend(ctx, conn, gen, graceful)
	write := func(line []byte) { _, _ = conn.Write(append(bytes.Clone(line), '\n')) }
	ask := func(line []byte) error { return r.ask(ctx, graceful.gone, write, line) }
	// A client's own initialize still unanswered is among the resent
	// (init is nil then): it is not replayed.
	if init != nil || ready {
		if init != nil {
			if err := ask(init); err != nil {
				r.logger.Warn("relay: replaying initialize failed", "err", err)
			}
		}
		if ready {
			write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
		}
		for _, l := range append([][]byte{level}, subs...) {
			if l != nil {
				_ = ask(l)
			}
		}
		if gen > 1 {
			r.logger.Info("relay: session re-opened with the vault's new owner", "resent", len(resend))
		}
	}
	for _, l := range resend {
		write(l)
	}
	r.mu.Lock()
	if r.gen == gen && !r.closed {
		r.conn = conn
		close(r.up)
	}
	r.mu.Unlock()
}

// ask sends a copy of the client's request line under an ID of the
// relay's own and waits for its answer.
func (r *relay) ask(ctx context.Context, gone <-chan struct{}, write func([]byte), line []byte) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		return err
	}
	r.mu.Lock()
	r.ownSeq++
	id := fmt.Sprintf("%q", fmt.Sprintf("%s%d", relayIDPrefix, r.ownSeq))
	ch := make(chan json.RawMessage, 1)
	r.own[id] = ch
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.own, id)
		r.mu.Unlock()
	}()
	obj["id"] = json.RawMessage(id)
	b, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	write(b)
	t := time.NewTimer(relayInitWait)
	defer t.Stop()
	select {
	case <-ch:
		return nil
	case <-gone:
		return errors.New("the connection ended")
	case <-t.C:
		return errors.New("no answer")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// handover is what a connection's reader tells its reconnect: that the
// owner said it hands over, and when the connection is gone.
type handover struct {
	said bool
	gone chan struct{}
}

// fromBackend writes the backend's messages to stdout until it ends, then
// settles the requests it left and reconnects.
func (r *relay) fromBackend(ctx context.Context, conn io.ReadWriteCloser, gen int, h *handover) {
	br := bufio.NewReaderSize(conn, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			r.fromOwner(line, h)
		}
		if err != nil {
			break
		}
	}
	_ = conn.Close()
	close(h.gone)
	r.mu.Lock()
	if r.gen != gen || r.closed {
		r.mu.Unlock()
		return
	}
	if r.conn != nil { // else it died during the replay: send still waits on up
		r.conn = nil
		r.up = make(chan struct{})
	}
	if !h.said {
		for id, p := range r.inflight {
			if p.gen == 0 {
				continue // never sent: it goes to the next owner
			}
			var m message
			_ = json.Unmarshal(p.line, &m)
			r.out.write(jsonrpc.ErrorLine(json.RawMessage(id), relayCodeLost,
				"vaultgraph: the process serving this request ("+m.Method+") stopped before answering (it exited or was killed); "+
					"another has taken over: retry (a write may or may not have been applied: read before repeating it)"))
			delete(r.inflight, id)
		}
		r.signalSettled()
	}
	r.mu.Unlock()
	r.logger.Info("relay: the vault's owner went away; connecting again", "handover", h.said)
	if ctx.Err() == nil {
		r.reconnect(ctx)
	}
}

// fromOwner handles one line from the backend.
func (r *relay) fromOwner(line []byte, h *handover) {
	m, ok := head(line)
	if !ok {
		return
	}
	if m.Method == MethodHandover {
		h.said = true
		return
	}
	if m.Method == "" && jsonrpc.HasID(m.ID) {
		id := string(m.ID)
		r.mu.Lock()
		if strings.HasPrefix(strings.Trim(id, `"`), relayIDPrefix) {
			ch := r.own[id]
			r.mu.Unlock()
			if ch != nil {
				ch <- json.RawMessage(bytes.Clone(line))
			}
			return
		}
		if p := r.inflight[id]; p != nil && p.sub != "" && !bytes.Contains(line, []byte(`"error"`)) {
			r.subs[p.sub] = p.line // an empty result: the owner accepted it
		}
		delete(r.inflight, id)
		r.signalSettled()
		r.mu.Unlock()
	}
	r.out.write(line)
}

// signalSettled wakes drain when nothing is in flight. r.mu must be held.
func (r *relay) signalSettled() {
	if r.settled != nil && len(r.inflight) == 0 {
		r.settled.Broadcast()
	}
}

// relayDrainWait bounds the wait at stdin's end for answers still due.
const relayDrainWait = time.Minute

// drain waits, at stdin's end, for the answers still due (each is bounded
// by the server, or ends as lost when the backend goes), at most
// relayDrainWait.
func (r *relay) drain(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, relayDrainWait)
	defer cancel()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.settled = sync.NewCond(&r.mu)
	stop := context.AfterFunc(ctx, func() {
		r.mu.Lock()
		r.settled.Broadcast()
		r.mu.Unlock()
	})
	defer stop()
	for len(r.inflight) > 0 && ctx.Err() == nil {
		r.settled.Wait()
	}
}

// close ends the relay's connection.
func (r *relay) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.conn != nil {
		_ = r.conn.Close()
	}
}

// relayOut is the relay's stdout: whole lines, one writer at a time.
type relayOut struct {
	mu sync.Mutex
	w  io.Writer
}

// write writes one message line (its newline added).
func (o *relayOut) write(line []byte) {
	line = bytes.TrimRight(line, "\r\n")
	o.mu.Lock()
	defer o.mu.Unlock()
	_, _ = o.w.Write(append(bytes.Clone(line), '\n'))
}

// head reads a message's id and method without decoding the rest: a tool
// answer is tens of KB, and every vaultgraph message puts "jsonrpc", "id"
// and "method" before "result", "error" and "params" (mcp-go's structs and
// the stdio encoder), so the scan stops there. Any other order is decoded
// in full.
func head(line []byte) (message, bool) {
	var m message
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return m, false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return m, false
		}
		key, _ := t.(string)
		switch key {
		case "id":
			if err := dec.Decode(&m.ID); err != nil {
				return m, false
			}
		case "method":
			if err := dec.Decode(&m.Method); err != nil {
				return m, false
			}
		case "result", "error", "params":
			return m, true // id and method come first
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return m, false
			}
		}
	}
	return m, true
}
