package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/vaultgraph/vaultgraph/internal/jsonrpc"
	"github.com/vaultgraph/vaultgraph/tools"
)

// OAuth defaults and limits. Each has a reason.
const (
	// DefaultReadScope and DefaultWriteScope are the scopes that give a
	// token read tools, and read and write tools.
	DefaultReadScope  = "vault:read"
	DefaultWriteScope = "vault:write"
	// DefaultOAuthLeeway is the clock skew allowed on exp, nbf and iat:
	// enough for servers whose clocks NTP keeps close, small enough that an
	// expired token stops working within a minute.
	DefaultOAuthLeeway = 60 * time.Second
	// DefaultKeyRefreshInterval is the least time between two JWKS
	// fetches caused by tokens naming an unknown key: a client sending
	// made-up key IDs must not make the server hammer the authorization
	// server.
	DefaultKeyRefreshInterval = 30 * time.Second
	// maxAuthorizationBytes caps the Authorization header read: real
	// access tokens are a few KiB; a larger one is refused before it is
	// parsed.
	maxAuthorizationBytes = 16 << 10
	// oauthFetchTimeout bounds each metadata or JWKS request: a slow
	// authorization server makes a request wait at most this long, and
	// keys already fetched keep working meanwhile.
	oauthFetchTimeout = 5 * time.Second
	// maxOAuthDocumentBytes caps a metadata or JWKS document.
	maxOAuthDocumentBytes = 1 << 20
	// ProtectedResourcePath is where the Protected Resource Metadata
	// (RFC 9728) is served; ProtectedResourcePath+MCPPath is the form
	// suffixed with the resource's path that MCP clients ask first.
	ProtectedResourcePath = "/.well-known/oauth-protected-resource"
)

// DefaultOAuthAlgorithms are the JWS algorithms accepted when
// OAuthOptions.Algorithms is empty: the asymmetric ones authorization
// servers sign access tokens with. "none" and the HMAC algorithms (a key
// shared with the server) are never accepted.
var DefaultOAuthAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// OAuthOptions make the HTTP transport an OAuth 2.1 resource server as
// the MCP authorization spec describes: it publishes Protected Resource
// Metadata naming its authorization server, and accepts JWT access tokens
// that server issued for it.
type OAuthOptions struct {
	// Issuer is the authorization server's issuer URL; its metadata is
	// discovered from it (OpenID discovery, else RFC 8414).
	Issuer string
	// Audience is the value a token's aud claim must contain.
	Audience string
	// ReadScope and WriteScope name the scopes that grant read tools, and
	// read and write tools; empty means vault:read and vault:write.
	ReadScope, WriteScope string
	// Resource is this server's MCP endpoint URL as clients reach it
	// (https://vault.example.com/mcp), published in the metadata; empty
	// derives it from each request (its Host, and X-Forwarded-Proto and
	// X-Forwarded-Host behind a proxy).
	Resource string
	// BehindProxy declares a TLS-terminating reverse proxy in front of a
	// plain-HTTP listener: it allows OAuth on a non-loopback address
	// without http.tls_cert and trusts X-Forwarded-* for the resource URL.
	BehindProxy bool
	// Leeway is the clock skew allowed on exp, nbf and iat; 0 means
	// DefaultOAuthLeeway.
	Leeway time.Duration
	// Algorithms allow-lists the JWS algorithms; empty means
	// DefaultOAuthAlgorithms.
	Algorithms []string
	// KeyRefreshInterval is the least time between JWKS fetches caused by
	// unknown key IDs; 0 means DefaultKeyRefreshInterval, a negative value
	// no wait (tests).
	KeyRefreshInterval time.Duration
	// HTTPClient fetches metadata and keys; nil means a client with a
	// 5-second timeout.
	HTTPClient *http.Client
}

func (o OAuthOptions) enabled() bool { return o.Issuer != "" }

// oauthIdentity is what a valid access token says of its holder.
type oauthIdentity struct {
	subject, email, name string
	readOnly             bool
}

// authProblem is why a request was refused: the status (401, 403 or 503),
// the OAuth error code for WWW-Authenticate (invalid_token,
// insufficient_scope, or none for a request without a token) and a message
// that says what to do.
type authProblem struct {
	status  int
	code    string
	message string
}

func (p *authProblem) Error() string { return p.message }

// asMetadata is the part of the authorization server's metadata used here.
type asMetadata struct {
	Issuer  string `json:"issuer"`
	JWKSURI string `json:"jwks_uri"`
}

// oauthVerifier validates JWT access tokens against the authorization
// server's keys. Keys are fetched at the first need and again, at most
// once per KeyRefreshInterval, when a token names a key not among them
// (the server rotated its keys); while the server cannot be reached, the
// keys already fetched keep working.
type oauthVerifier struct {
	opts   OAuthOptions
	algs   []jose.SignatureAlgorithm
	client *http.Client
	logger *slog.Logger
	now    func() time.Time

	mu        sync.Mutex
	meta      *asMetadata
	keys      *jose.JSONWebKeySet
	lastFetch time.Time     // of the keys, successful or not
	fetching  chan struct{} // closed when the fetch in flight ends; nil when none
}

func newOAuthVerifier(opts OAuthOptions, logger *slog.Logger) (*oauthVerifier, error) {
	u, err := url.Parse(opts.Issuer)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("server: http.oauth.issuer %q is not an http(s) URL; set it to the authorization server's issuer, e.g. https://login.example.com/realms/team", opts.Issuer)
	}
	if strings.TrimSpace(opts.Audience) == "" {
		return nil, errors.New("server: http.oauth.audience is required with http.oauth.issuer; set it to the audience your authorization server puts in vaultgraph's access tokens")
	}
	if opts.ReadScope == "" {
		opts.ReadScope = DefaultReadScope
	}
	if opts.WriteScope == "" {
		opts.WriteScope = DefaultWriteScope
	}
	if opts.Leeway <= 0 {
		opts.Leeway = DefaultOAuthLeeway
	}
	if opts.KeyRefreshInterval == 0 {
		opts.KeyRefreshInterval = DefaultKeyRefreshInterval
	}
	names := opts.Algorithms
	if len(names) == 0 {
		names = DefaultOAuthAlgorithms
	}
	var algs []jose.SignatureAlgorithm
	for _, n := range names {
		switch a := jose.SignatureAlgorithm(n); a {
		case jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512, jose.ES256, jose.ES384, jose.ES512, jose.EdDSA:
			algs = append(algs, a)
		default:
			return nil, fmt.Errorf("server: OAuth signing algorithm %q is not accepted; use asymmetric ones such as RS256 or ES256", n)
		}
	}
	client := opts.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: oauthFetchTimeout}
	}
	return &oauthVerifier{opts: opts, algs: algs, client: client, logger: logger, now: time.Now}, nil
}

// verify validates a raw access token: its signature by one of the
// authorization server's keys with an allowed algorithm, its issuer,
// audience, times, and that it grants at least the read scope.
func (v *oauthVerifier) verify(ctx context.Context, raw string) (oauthIdentity, *authProblem) {
	invalid := func(msg string) (oauthIdentity, *authProblem) {
		return oauthIdentity{}, &authProblem{status: http.StatusUnauthorized, code: "invalid_token", message: msg}
	}
	tok, err := jwt.ParseSigned(raw, v.algs)
	if err != nil {
		return invalid("the bearer token is not a JWT access token signed with an accepted algorithm; sign in again to get a token from " + v.opts.Issuer)
	}
	if len(tok.Headers) != 1 {
		return invalid("the access token must carry exactly one signature")
	}
	key, problem := v.key(ctx, tok.Headers[0].KeyID)
	if problem != nil {
		return oauthIdentity{}, problem
	}
	var std jwt.Claims
	var extra struct {
		Scope             string          `json:"scope"`
		Scp               json.RawMessage `json:"scp"`
		Email             string          `json:"email"`
		Name              string          `json:"name"`
		PreferredUsername string          `json:"preferred_username"`
	}
	if err := tok.Claims(key, &std, &extra); err != nil {
		return invalid("the access token's signature does not verify with the authorization server's keys; sign in again")
	}
	if std.Expiry == nil {
		return invalid("the access token has no expiry (exp); the authorization server must issue expiring tokens")
	}
	err = std.ValidateWithLeeway(jwt.Expected{Issuer: v.opts.Issuer, AnyAudience: jwt.Audience{v.opts.Audience}, Time: v.now()}, v.opts.Leeway)
	switch {
	case err == nil:
	case errors.Is(err, jwt.ErrExpired):
		return invalid("the access token has expired; refresh it or sign in again")
	case errors.Is(err, jwt.ErrNotValidYet), errors.Is(err, jwt.ErrIssuedInTheFuture):
		return invalid("the access token is not valid yet: this machine's clock and the authorization server's differ by more than the allowed skew")
	case errors.Is(err, jwt.ErrInvalidIssuer):
		return invalid("the access token was issued by another authorization server; this server accepts tokens of " + v.opts.Issuer)
	case errors.Is(err, jwt.ErrInvalidAudience):
		return invalid("the access token is for another audience; request a token for " + v.opts.Audience)
	default:
		return invalid("the access token's claims are not valid: " + err.Error())
	}
	if std.Subject == "" {
		return invalid("the access token has no subject (sub)")
	}
	scopes := scopeSet(extra.Scope, extra.Scp)
	id := oauthIdentity{subject: std.Subject, email: extra.Email, name: extra.Name}
	if id.name == "" {
		id.name = extra.PreferredUsername
	}
	switch {
	case scopes[v.opts.WriteScope]:
	case scopes[v.opts.ReadScope]:
		id.readOnly = true
	default:
		return oauthIdentity{}, &authProblem{status: http.StatusForbidden, code: "insufficient_scope",
			message: fmt.Sprintf("the access token grants neither %s nor %s; sign in again asking for scope %s", v.opts.ReadScope, v.opts.WriteScope, v.opts.ReadScope)}
	}
	return id, nil
}

// scopeSet reads the scopes of a token: "scope" is a space-separated
// string (RFC 9068); "scp" is a list (Okta) or a space-separated string
// (Entra ID).
func scopeSet(scope string, scp json.RawMessage) map[string]bool {
	set := map[string]bool{}
	for _, s := range strings.Fields(scope) {
		set[s] = true
	}
	var list []string
	var one string
	if json.Unmarshal(scp, &list) == nil {
		for _, s := range list {
			set[s] = true
		}
	} else if json.Unmarshal(scp, &one) == nil {
		for _, s := range strings.Fields(one) {
			set[s] = true
		}
	}
	return set
}

// key returns the authorization server's key named kid (the only key
// when kid is empty and there is one), fetching the keys when they are
// not known yet or do not have it and the last fetch is old enough.
func (v *oauthVerifier) key(ctx context.Context, kid string) (*jose.JSONWebKey, *authProblem) {
	if k := v.cachedKey(kid); k != nil {
		return k, nil
	}
	if err := v.refresh(ctx); err != nil {
		v.mu.Lock()
		haveKeys := v.keys != nil
		v.mu.Unlock()
		if !haveKeys {
			return nil, &authProblem{status: http.StatusServiceUnavailable, message: "the authorization server's keys cannot be read now, so no token can be checked; retry in a few seconds"}
		}
	}
	if k := v.cachedKey(kid); k != nil {
		return k, nil
	}
	return nil, &authProblem{status: http.StatusUnauthorized, code: "invalid_token", message: "the access token is signed by a key the authorization server does not publish; sign in again"}
}

func (v *oauthVerifier) cachedKey(kid string) *jose.JSONWebKey {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.keys == nil {
		return nil
	}
	if kid == "" {
		if len(v.keys.Keys) == 1 {
			return &v.keys.Keys[0]
		}
		return nil
	}
	for i := range v.keys.Keys {
		k := &v.keys.Keys[i]
		if k.KeyID == kid && (k.Use == "" || k.Use == "sig") && k.IsPublic() {
			return k
		}
	}
	return nil
}

// refresh fetches the keys, unless a fetch is in flight (it waits for
// that one) or the last one is more recent than KeyRefreshInterval.
func (v *oauthVerifier) refresh(ctx context.Context) error {
	v.mu.Lock()
	if ch := v.fetching; ch != nil {
		v.mu.Unlock()
		select {
		case <-ch:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if v.keys != nil && v.opts.KeyRefreshInterval > 0 && v.now().Sub(v.lastFetch) < v.opts.KeyRefreshInterval {
		v.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	v.fetching = ch
	v.mu.Unlock()

	keys, err := v.fetchKeys(context.WithoutCancel(ctx))

	v.mu.Lock()
	v.lastFetch = v.now()
	if err == nil {
		v.keys = keys
	}
	v.fetching = nil
	close(ch)
	v.mu.Unlock()
	if err != nil {
		v.logger.Warn("OAuth: cannot read the authorization server's keys; keys fetched before keep working", "issuer", v.opts.Issuer, "err", err)
	}
	return err
}

// fetchKeys discovers the metadata (once) and reads the JWKS.
func (v *oauthVerifier) fetchKeys(ctx context.Context) (*jose.JSONWebKeySet, error) {
	v.mu.Lock()
	meta := v.meta
	v.mu.Unlock()
	if meta == nil {
		m, err := v.discover(ctx)
		if err != nil {
			return nil, err
		}
		v.mu.Lock()
		v.meta = m
		v.mu.Unlock()
		meta = m
	}
	var set jose.JSONWebKeySet
	if err := v.getJSON(ctx, meta.JWKSURI, &set); err != nil {
		return nil, fmt.Errorf("read keys: %w", err)
	}
	if len(set.Keys) == 0 {
		return nil, fmt.Errorf("read keys: %s lists no key", meta.JWKSURI)
	}
	return &set, nil
}

// discover reads the authorization server's metadata: OpenID discovery
// first, then RFC 8414's well-known URI, and checks that it names the
// configured issuer.
func (v *oauthVerifier) discover(ctx context.Context) (*asMetadata, error) {
	issuer := strings.TrimSuffix(v.opts.Issuer, "/")
	u, _ := url.Parse(issuer)
	candidates := []string{issuer + "/.well-known/openid-configuration"}
	rfc8414 := *u
	rfc8414.Path = "/.well-known/oauth-authorization-server" + u.Path
	candidates = append(candidates, rfc8414.String())
	var errs []error
	for _, c := range candidates {
		var m asMetadata
		if err := v.getJSON(ctx, c, &m); err != nil {
			errs = append(errs, err)
			continue
		}
		if m.Issuer != v.opts.Issuer && m.Issuer != issuer {
			return nil, fmt.Errorf("discovery: %s names issuer %q, not %q; set http.oauth.issuer to the exact issuer", c, m.Issuer, v.opts.Issuer)
		}
		if m.JWKSURI == "" {
			return nil, fmt.Errorf("discovery: %s has no jwks_uri", c)
		}
		return &m, nil
	}
	return nil, fmt.Errorf("discovery of %s: %w", v.opts.Issuer, errors.Join(errs...))
}

func (v *oauthVerifier) getJSON(ctx context.Context, u string, into any) error {
	ctx, cancel := context.WithTimeout(ctx, oauthFetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := v.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxOAuthDocumentBytes+1))
	if err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	if len(body) > maxOAuthDocumentBytes {
		return fmt.Errorf("GET %s: larger than %d bytes", u, maxOAuthDocumentBytes)
	}
	if err := json.Unmarshal(body, into); err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	return nil
}

// resourceURL is the MCP endpoint's URL as the client reached it.
func (h *HTTPServer) resourceURL(r *http.Request) string {
	if h.opts.OAuth.Resource != "" {
		return h.opts.OAuth.Resource
	}
	scheme, host := "http", r.Host
	if r.TLS != nil {
		scheme = "https"
	}
	if h.opts.OAuth.BehindProxy {
		if p := r.Header.Get("X-Forwarded-Proto"); p == "https" || p == "http" {
			scheme = p
		}
		if fh := r.Header.Get("X-Forwarded-Host"); fh != "" && !strings.ContainsAny(fh, "/\\@ \"") {
			host = fh
		}
	}
	return scheme + "://" + host + MCPPath
}

// metadataURL is where the resource's Protected Resource Metadata is.
func (h *HTTPServer) metadataURL(r *http.Request) string {
	res := h.resourceURL(r)
	u, err := url.Parse(res)
	if err != nil {
		return ProtectedResourcePath
	}
	path := u.Path
	u.Path = ProtectedResourcePath + path
	return u.String()
}

// protectedResource serves the Protected Resource Metadata (RFC 9728).
func (h *HTTPServer) protectedResource(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	o := h.oauth.opts
	doc := map[string]any{
		"resource":                 h.resourceURL(r),
		"authorization_servers":    []string{o.Issuer},
		"scopes_supported":         []string{o.ReadScope, o.WriteScope},
		"bearer_methods_supported": []string{"header"},
		"resource_name":            "vaultgraph",
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "max-age=300")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	_ = json.NewEncoder(w).Encode(doc)
}

// challenge builds the WWW-Authenticate value of a refusal.
func (h *HTTPServer) challenge(r *http.Request, p *authProblem) string {
	if h.oauth == nil {
		return `Bearer realm="vaultgraph"`
	}
	o := h.oauth.opts
	scope := o.ReadScope
	if p != nil && p.code == "insufficient_scope" {
		scope = o.ReadScope + " " + o.WriteScope
	}
	parts := []string{fmt.Sprintf(`resource_metadata=%q`, h.metadataURL(r)), fmt.Sprintf(`scope=%q`, scope)}
	if p != nil && p.code != "" {
		parts = append(parts, fmt.Sprintf(`error=%q`, p.code), fmt.Sprintf(`error_description=%q`, strings.ReplaceAll(p.message, `"`, `'`)))
	}
	return "Bearer " + strings.Join(parts, ", ")
}

// requireWriteScope answers 403 insufficient_scope, with the challenge the
// MCP authorization spec describes for stepping up, to a tools/call of a
// tool that may write made with an OAuth token that grants only the read
// scope; the tool never runs. (A read-only static token is answered as
// before: its tools/list hides the writing tools and a call of one is
// refused as unknown.)
func (h *HTTPServer) requireWriteScope(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := principalFrom(r.Context())
		srv := h.mcp.Load()
		if !p.oauth || !p.readOnly || r.Method != http.MethodPost || srv == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			writeHTTPError(w, http.StatusBadRequest, nil, jsonrpc.CodeInvalidRequest, "the request body could not be read")
			return
		}
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		for _, name := range calledTools(body) {
			if t := srv.GetTool(name); t != nil && !tools.IsReadOnly(t.Tool) {
				h.refuse(w, r, &authProblem{status: http.StatusForbidden, code: "insufficient_scope",
					message: fmt.Sprintf("%s may change the vault and needs scope %s; sign in again asking for it", name, h.opts.OAuth.WriteScope)})
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// calledTools returns the names of the tools a JSON-RPC message (or
// batch) calls.
func calledTools(body []byte) []string {
	type call struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	var batch []call
	var one call
	if json.Unmarshal(body, &one) != nil {
		if json.Unmarshal(body, &batch) != nil {
			return nil
		}
	} else {
		batch = []call{one}
	}
	var names []string
	for _, c := range batch {
		if c.Method == "tools/call" {
			names = append(names, c.Params.Name)
		}
	}
	return names
}
