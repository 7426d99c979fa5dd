package view

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
)

// AuthOptions say who may open the view.
type AuthOptions struct {
	// CheckToken reports whether a token typed into the login form is
	// one of the server's (http.tokens, the same as /mcp's) and whether it
	// is read-only. nil: no token logs in (only one-time links do).
	CheckToken func(token string) (readOnly, ok bool)
	// TokenActor names the holder of a token CheckToken accepted for the
	// change log ("token:2"); nil records the view's saves as "view".
	TokenActor func(token string) string
	// Open serves the view without a session, as /mcp is served without
	// a token on a loopback address with no tokens configured.
	Open bool
	// ReadOnly makes every session read-only (the read_only setting).
	ReadOnly bool
	// SessionTTL is how long a session lasts from its login; 0 means
	// DefaultSessionTTL.
	SessionTTL time.Duration
}

// Session limits. A session is a random 256-bit ID in a cookie; the
// server keeps it (and whether it is read-only) in memory, so a restart
// logs everyone out and a token removed from the configuration opens no
// new session.
const (
	DefaultSessionTTL = 12 * time.Hour
	maxSessions       = 10000 // beyond, expired ones are dropped, then the oldest
	maxLinks          = 100   // unused one-time links kept; the oldest goes first
	cookieName        = "vaultgraph_view"
)

type session struct {
	readOnly bool
	expires  time.Time
	actor    string // who its saves are recorded as (core.Actor's ID)
}

// authenticator keeps sessions and one-time links.
type authenticator struct {
	opts AuthOptions
	now  func() time.Time

	mu       sync.Mutex
	sessions map[[32]byte]session // by SHA-256 of the cookie's value
	links    map[[32]byte]linkSecret
}

type linkSecret struct {
	readOnly bool
	made     time.Time
}

func newAuthenticator(opts AuthOptions) (*authenticator, error) {
	if opts.Open && opts.CheckToken != nil {
		return nil, errors.New("view: an open view takes no tokens")
	}
	if opts.SessionTTL <= 0 {
		opts.SessionTTL = DefaultSessionTTL
	}
	return &authenticator{opts: opts, now: time.Now, sessions: map[[32]byte]session{}, links: map[[32]byte]linkSecret{}}, nil
}

func randomSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// newLink returns the path of a one-time login link.
func (a *authenticator) newLink(readOnly bool) string {
	secret := randomSecret()
	a.mu.Lock()
	if len(a.links) >= maxLinks {
		var oldest [32]byte
		first := true
		for k, l := range a.links {
			if first || l.made.Before(a.links[oldest].made) {
				oldest, first = k, false
			}
		}
		delete(a.links, oldest)
	}
	a.links[sha256.Sum256([]byte(secret))] = linkSecret{readOnly: readOnly || a.opts.ReadOnly, made: a.now()}
	a.mu.Unlock()
	return PathPrefix + "login?k=" + url.QueryEscape(secret)
}

// spendLink opens a session for a one-time secret, which is spent.
func (a *authenticator) spendLink(secret string) (string, bool) {
	key := sha256.Sum256([]byte(secret))
	a.mu.Lock()
	l, ok := a.links[key]
	delete(a.links, key)
	a.mu.Unlock()
	if !ok {
		return "", false
	}
	return a.open(l.readOnly, core.ActorLocal.ID), true
}

// login opens a session for a token.
func (a *authenticator) login(token string) (string, bool) {
	if a.opts.CheckToken == nil || token == "" {
		return "", false
	}
	readOnly, ok := a.opts.CheckToken(token)
	if !ok {
		return "", false
	}
	actor := "view"
	if a.opts.TokenActor != nil {
		actor = a.opts.TokenActor(token)
	}
	return a.open(readOnly || a.opts.ReadOnly, actor), true
}

// open stores a new session and returns its cookie value.
func (a *authenticator) open(readOnly bool, actor string) string {
	id := randomSecret()
	now := a.now()
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.sessions) >= maxSessions {
		var oldest [32]byte
		first := true
		for k, s := range a.sessions {
			if s.expires.Before(now) {
				delete(a.sessions, k)
				continue
			}
			if first || s.expires.Before(a.sessions[oldest].expires) {
				oldest, first = k, false
			}
		}
		if len(a.sessions) >= maxSessions {
			delete(a.sessions, oldest)
		}
	}
	a.sessions[sha256.Sum256([]byte(id))] = session{readOnly: readOnly, expires: now.Add(a.opts.SessionTTL), actor: actor}
	return id
}

// access is what a request may do: ok is false without a live session
// (unless the view is open).
func (a *authenticator) access(r *http.Request) (readOnly, ok bool) {
	if a.opts.Open {
		return a.opts.ReadOnly, true
	}
	c, err := r.Cookie(cookieName)
	if err != nil || c.Value == "" {
		return false, false
	}
	key := sha256.Sum256([]byte(c.Value))
	a.mu.Lock()
	defer a.mu.Unlock()
	s, found := a.sessions[key]
	if !found {
		return false, false
	}
	if a.now().After(s.expires) {
		delete(a.sessions, key)
		return false, false
	}
	return s.readOnly, true
}

// actor is who the request's saves are recorded as: the session's
// holder, or the local user of an open view (or one without a session,
// which access refuses anyway).
func (a *authenticator) actor(r *http.Request) core.Actor {
	if c, err := r.Cookie(cookieName); err == nil && !a.opts.Open {
		a.mu.Lock()
		s, ok := a.sessions[sha256.Sum256([]byte(c.Value))]
		a.mu.Unlock()
		if ok && s.actor != "" {
			return core.Actor{ID: s.actor}
		}
	}
	return core.ActorLocal
}

// logout ends the request's session.
func (a *authenticator) logout(r *http.Request) {
	if c, err := r.Cookie(cookieName); err == nil {
		a.mu.Lock()
		delete(a.sessions, sha256.Sum256([]byte(c.Value)))
		a.mu.Unlock()
	}
}

// setCookie gives the browser its session: HttpOnly (no script reads
// it), SameSite=Strict (no other site's page sends it), Secure over
// HTTPS, for the view's paths only.
func (a *authenticator) setCookie(w http.ResponseWriter, r *http.Request, value string) {
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: value, Path: PathPrefix, HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: r.TLS != nil, MaxAge: int(a.opts.SessionTTL / time.Second),
	})
}

func clearCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: PathPrefix, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil, MaxAge: -1})
}
