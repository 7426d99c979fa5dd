package server

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"
)

// Session limits of the streamable HTTP transport. Each open session costs
// the server about 10 KB (mcp-go's session with its notification queues),
// whether or not the client ever comes back, so sessions are bounded three
// ways: an idle timeout, a cap per token and a cap for the server.
const (
	// DefaultSessionIdleTimeout closes a session nobody used for this
	// long. The shim reconnects transparently when its session is gone,
	// and other clients must start a new one on a 404 (MCP transport
	// spec), so a short timeout costs a client one initialize. An open
	// GET stream counts as use (its heartbeats touch the session).
	DefaultSessionIdleTimeout = 30 * time.Minute
	// DefaultMaxSessions bounds the sessions open at once: about 100 MB
	// at 10 KB each, far above what a team's clients hold.
	DefaultMaxSessions = 10000
	// DefaultMaxSessionsPerToken bounds the sessions of one token (or of
	// every client when no token is configured), so that one client that
	// leaks sessions cannot take the whole server's allowance.
	DefaultMaxSessionsPerToken = 1000
	// DefaultMaxSessionsPerClient bounds the sessions of one token from
	// one IP address (issue 43), below the token's cap, so that one client
	// of a shared token cannot take all of the token's sessions.
	DefaultMaxSessionsPerClient = 100
)

// errSessionLimit is a refused initialize; its fields say which limit.
type errSessionLimit struct {
	perToken  bool
	perClient bool // of the token from one address
	limit     int
	idle      time.Duration
}

func (e *errSessionLimit) Error() string {
	who := "the server has reached its limit of %d open sessions"
	switch {
	case e.perClient:
		who = "this token has reached its limit of %d open sessions from one address"
	case e.perToken:
		who = "this token has reached its limit of %d open sessions"
	}
	return fmt.Sprintf(who+"; end the sessions you no longer use (HTTP DELETE %s with their %s header; vaultgraph shim does it when it exits), or retry later: a session unused for %s is closed",
		e.limit, MCPPath, sessionHeader, e.idle)
}

// status is the HTTP status of the refusal: a client over its own limit
// sent too many requests; a full server is unavailable to everyone.
func (e *errSessionLimit) status() int {
	if e.perToken || e.perClient {
		return http.StatusTooManyRequests
	}
	return http.StatusServiceUnavailable
}

const sessionHeader = "Mcp-Session-Id"

// sessionPrefix starts every session ID this server issues.
const sessionPrefix = "vg-"

// sessions tracks the open sessions of the HTTP transport, each bound to
// the token (owner) that opened it: only that token may use or end it.
// mcp-go keeps the sessions' state; this registry is the SessionIdManager
// it asks to issue, validate and end session IDs, and its count is what
// the limits are checked against.
//
// A session is counted from the moment its initialize is accepted (a
// reservation) so that concurrent initializes cannot overshoot a limit.
type sessions struct {
	max, maxPerOwner, maxPerClient int
	idle                           time.Duration

	mu        sync.Mutex
	owners    map[string]int           // session ID → owner
	clients   map[string]sessionClient // session ID → owner and address
	perOwner  map[int]int              // sessions and reservations of each owner
	perClient map[sessionClient]int    // sessions and reservations of each owner from each address
	total     int                      // sessions and reservations of all owners

	// onChange, when set, is told the number of open sessions after each
	// change, and onOpen of each new session (metrics). They are called
	// without mu held.
	onChange func(open int)
	onOpen   func()
}

// sessionClient is an owner (token) from one address (IP, without the port).
type sessionClient struct {
	owner int
	addr  string
}

func newSessions(max, maxPerOwner, maxPerClient int, idle time.Duration) *sessions {
	return &sessions{max: max, maxPerOwner: maxPerOwner, maxPerClient: maxPerClient, idle: idle,
		owners: map[string]int{}, clients: map[string]sessionClient{}, perOwner: map[int]int{}, perClient: map[sessionClient]int{}}
}

// reservation is a place for one session of a client, taken by an
// initialize before mcp-go asks for its ID, and given back if it never
// does.
type reservation struct {
	sessionClient
	bound bool // guarded by sessions.mu
}

// reserve counts one more session for owner from addr, or says which
// limit refuses it.
func (s *sessions) reserve(owner int, addr string) (*reservation, error) {
	c := sessionClient{owner, addr}
	s.mu.Lock()
	switch {
	case s.maxPerClient > 0 && s.perClient[c] >= s.maxPerClient:
		s.mu.Unlock()
		return nil, &errSessionLimit{perClient: true, limit: s.maxPerClient, idle: s.idle}
	case s.perOwner[owner] >= s.maxPerOwner:
		s.mu.Unlock()
		return nil, &errSessionLimit{perToken: true, limit: s.maxPerOwner, idle: s.idle}
	case s.total >= s.max:
		s.mu.Unlock()
		return nil, &errSessionLimit{limit: s.max, idle: s.idle}
	}
	s.perOwner[owner]++
	s.perClient[c]++
	s.total++
	s.mu.Unlock()
	return &reservation{sessionClient: c}, nil
}

// bind issues a session ID for a reservation.
func (s *sessions) bind(r *reservation) string {
	id := sessionPrefix + rand.Text()
	s.mu.Lock()
	r.bound = true
	s.owners[id] = r.owner
	s.clients[id] = r.sessionClient
	open := len(s.owners)
	s.mu.Unlock()
	if s.onOpen != nil {
		s.onOpen()
	}
	s.changed(open)
	return id
}

// release gives back a reservation that no session took.
func (s *sessions) release(r *reservation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.bound {
		return
	}
	r.bound = true // released once
	s.drop(r.sessionClient)
}

// drop uncounts one session of c; mu is held.
func (s *sessions) drop(c sessionClient) {
	s.total--
	if s.perOwner[c.owner]--; s.perOwner[c.owner] <= 0 {
		delete(s.perOwner, c.owner)
	}
	if s.perClient[c]--; s.perClient[c] <= 0 {
		delete(s.perClient, c)
	}
}

// ownedBy reports whether id is an open session of owner.
func (s *sessions) ownedBy(id string, owner int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.owners[id]
	return ok && o == owner
}

// end forgets a session (DELETE, idle timeout, shutdown); an unknown ID
// is no error.
func (s *sessions) end(id string) {
	s.mu.Lock()
	_, ok := s.owners[id]
	if ok {
		c := s.clients[id]
		delete(s.owners, id)
		delete(s.clients, id)
		s.drop(c)
	}
	open := len(s.owners)
	s.mu.Unlock()
	if ok {
		s.changed(open)
	}
}

// open returns the number of open sessions.
func (s *sessions) open() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.owners)
}

func (s *sessions) changed(open int) {
	if s.onChange != nil {
		s.onChange(open)
	}
}

// ResolveSessionIdManager gives mcp-go a manager for one request, acting
// for the request's token; nil (the idle sweeper, shutdown) gets one that
// may end any session.
func (s *sessions) ResolveSessionIdManager(r *http.Request) mcpserver.SessionIdManager {
	if r == nil {
		return sessionManager{reg: s, any: true}
	}
	ctx := r.Context()
	p, _ := principalFrom(ctx)
	res, _ := ctx.Value(reservationKey{}).(*reservation)
	return sessionManager{reg: s, owner: p.token, res: res}
}

type reservationKey struct{}

func withReservation(ctx context.Context, r *reservation) context.Context {
	return context.WithValue(ctx, reservationKey{}, r)
}

var errUnknownSession = errors.New("server: unknown session")

// sessionManager is mcp-go's SessionIdManager for one request (or, with
// any, for the transport itself).
type sessionManager struct {
	reg   *sessions
	owner int
	res   *reservation
	any   bool
}

// Generate issues the ID of the session the request's initialize reserved.
// Every initialize passes guardSessions, which reserves; without a
// reservation no session is opened (mcp-go then sends no session ID).
func (m sessionManager) Generate() string {
	if m.res == nil {
		return ""
	}
	return m.reg.bind(m.res)
}

// Validate accepts an open session of the request's token only.
func (m sessionManager) Validate(id string) (isTerminated bool, err error) {
	if m.any {
		return false, nil
	}
	if !m.reg.ownedBy(id, m.owner) {
		return false, errUnknownSession
	}
	return false, nil
}

// Terminate ends a session. guardSessions has checked that the request's
// token owns it; the sweeper and shutdown may end any.
func (m sessionManager) Terminate(id string) (isNotAllowed bool, err error) {
	if !m.any && !m.reg.ownedBy(id, m.owner) {
		return false, errUnknownSession
	}
	m.reg.end(id)
	return false, nil
}

var _ mcpserver.SessionIdManagerResolver = (*sessions)(nil)
