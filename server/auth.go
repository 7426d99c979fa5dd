package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/tools"
)

// Token is a bearer token the HTTP transport accepts.
type Token struct {
	Value string
	// ReadOnly restricts the holder to tools whose ReadOnlyHint is true:
	// tools/list hides the others and tools/call refuses them.
	ReadOnly bool
}

// principal is who an authenticated request acts as: token is the
// position of its token in HTTPOptions.Tokens plus one (0 when the server
// has no tokens); sessions belong to it.
type principal struct {
	readOnly bool
	token    int
	oauth    bool       // an OAuth access token, not one of http.tokens
	actor    core.Actor // who the changes made under it are recorded as
}

type principalKey struct{}

func withPrincipal(ctx context.Context, p principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

func principalFrom(ctx context.Context) (principal, bool) {
	p, ok := ctx.Value(principalKey{}).(principal)
	return p, ok
}

// readOnlyPrincipalFilter hides every tool that may write from a read-only
// principal. mcp-go applies tool filters to tools/list and again to
// tools/call, so a refused call never reaches a handler (it is answered
// like an unknown tool) and has no side effect.
func readOnlyPrincipalFilter(ctx context.Context, ts []mcp.Tool) []mcp.Tool {
	p, ok := principalFrom(ctx)
	if !ok || !p.readOnly {
		return ts
	}
	out := make([]mcp.Tool, 0, len(ts))
	for _, t := range ts {
		if tools.IsReadOnly(t) {
			out = append(out, t)
		}
	}
	return out
}

// tokenSet checks bearer tokens in constant time.
type tokenSet struct {
	hashes   [][sha256.Size]byte
	readOnly []bool
}

func newTokenSet(tokens []Token) tokenSet {
	var ts tokenSet
	for _, t := range tokens {
		ts.hashes = append(ts.hashes, sha256.Sum256([]byte(t.Value)))
		ts.readOnly = append(ts.readOnly, t.ReadOnly)
	}
	return ts
}

// match returns the principal of the presented token. It compares the
// SHA-256 of the presented value with every token's, without stopping at
// a match, so neither the position of the match nor the tokens' lengths
// show in the timing.
func (ts tokenSet) match(presented string) (principal, bool) {
	h := sha256.Sum256([]byte(presented))
	found, readOnly, index := 0, 0, 0
	for i, want := range ts.hashes {
		eq := subtle.ConstantTimeCompare(h[:], want[:])
		found |= eq
		ro := 0
		if ts.readOnly[i] {
			ro = 1
		}
		readOnly |= eq & ro
		index = subtle.ConstantTimeSelect(eq, i+1, index)
	}
	return principal{readOnly: readOnly == 1, token: index, actor: core.Actor{ID: fmt.Sprintf("token:%d", index)}}, found == 1
}

// subjectIDs numbers OAuth subjects after the static tokens, so that a
// person's sessions belong to that person as a token's belong to the
// token (sessions are bound to a principal's number).
type subjectIDs struct {
	mu   sync.Mutex
	byID map[string]int
}

func (s *subjectIDs) number(subject string, tokens int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byID == nil {
		s.byID = map[string]int{}
	}
	n, ok := s.byID[subject]
	if !ok {
		n = tokens + 1 + len(s.byID)
		s.byID[subject] = n
	}
	return n
}

// CheckToken reports whether presented is one of the server's tokens and
// whether that token is read-only, in constant time as for /mcp: the web
// view's login form checks tokens with it.
func (h *HTTPServer) CheckToken(presented string) (readOnly, ok bool) {
	p, ok := h.tokens.match(presented)
	return p.readOnly, ok
}

// TokenActor returns who the holder of presented, one of the server's
// static tokens, is in the change log ("token:<n>", n counting from 1 in
// http.tokens), or "" for another token.
func (h *HTTPServer) TokenActor(presented string) string {
	p, ok := h.tokens.match(presented)
	if !ok {
		return ""
	}
	return p.actor.ID
}

// attributeCalls makes every tool call carry its caller (core.WithActor)
// for the change log: the HTTP principal (a signed-in person, or a static
// token), else the local user of a stdio process or of a server without
// tokens.
func attributeCalls(next mcpserver.ToolHandlerFunc) mcpserver.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if p, ok := principalFrom(ctx); ok && p.actor.ID != "" {
			ctx = core.WithActor(ctx, p.actor)
		} else if a, ok := relayedActor(ctx, req); ok {
			ctx = core.WithActor(ctx, a)
		} else if _, ok := core.ActorFrom(ctx); !ok {
			ctx = core.WithActor(ctx, core.ActorLocal)
		}
		return next(ctx, req)
	}
}

// bearerToken returns the token of an "Authorization: Bearer <token>"
// header, or what is wrong with the header, for the 401's message.
func bearerToken(r *http.Request) (token, problem string) {
	header := r.Header.Get("Authorization")
	if header == "" {
		return "", "no Authorization header; send Authorization: Bearer <token> with a token from the server's http.tokens"
	}
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", "the Authorization header is not a bearer token; send Authorization: Bearer <token>"
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return "", "the bearer token is empty; send Authorization: Bearer <token>"
	}
	return token, ""
}

// ActorMetaKey is the _meta field in which an HTTP front that relays its
// clients' tool calls to the vault's owner (Forward) names each call's
// caller: {"id", "email", "name"} as core.Actor. The owner reads it only on
// a connection marked by WithRelayedActors.
const ActorMetaKey = "vaultgraph/actor"

// relayedActorsKey marks the context of a connection whose tool calls
// carry their caller in _meta.
type relayedActorsKey struct{}

// WithRelayedActors marks ctx, under which a connection is served
// (ServeStream), as an HTTP front's: its tool calls' ActorMetaKey names the
// actor the change log records. The owner marks only the connections whose
// process said so in its Hello (owner.KindMCPFront), never from a message's
// content, so a client cannot name someone else.
func WithRelayedActors(ctx context.Context) context.Context {
	return context.WithValue(ctx, relayedActorsKey{}, true)
}

// maxActorField bounds each field of a relayed actor (an OAuth subject,
// email or name is far shorter).
const maxActorField = 1024

// relayedActor is the actor a front named in req's _meta, on a connection
// marked by WithRelayedActors.
func relayedActor(ctx context.Context, req mcp.CallToolRequest) (core.Actor, bool) {
	if ok, _ := ctx.Value(relayedActorsKey{}).(bool); !ok || req.Params.Meta == nil {
		return core.Actor{}, false
	}
	m, _ := req.Params.Meta.AdditionalFields[ActorMetaKey].(map[string]any)
	field := func(k string) string {
		s, _ := m[k].(string)
		if len(s) > maxActorField {
			return ""
		}
		return s
	}
	a := core.Actor{ID: field("id"), Email: field("email"), Name: field("name")}
	return a, a.ID != ""
}

// actorMeta is the ActorMetaKey value naming a.
func actorMeta(a core.Actor) map[string]any {
	m := map[string]any{"id": a.ID}
	if a.Email != "" {
		m["email"] = a.Email
	}
	if a.Name != "" {
		m["name"] = a.Name
	}
	return m
}
