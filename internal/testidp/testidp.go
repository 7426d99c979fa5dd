// Package testidp runs a real OpenID provider for tests: zitadel/oidc's OP
// package (the certified Go implementation) over the in-memory storage of
// its example server, on a loopback port. It issues JWT access tokens for
// one audience with the scopes asked for, through the authorization-code
// flow with PKCE (a public "native" client with a loopback redirect, as
// MCP clients and vaultgraph's shim are) and the client-credentials flow
// (a service client), and can rotate its signing key. Tests of the OAuth
// resource server use it instead of a mock, so discovery, JWKS, signatures
// and the flows are those an authorization server really serves.
package testidp

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// The provider's clients and user.
const (
	// NativeClientID is a public client (no secret, PKCE) allowed any
	// loopback redirect, like a desktop MCP client.
	NativeClientID = "vaultgraph-native"
	// ServiceClientID and ServiceClientSecret are a confidential client
	// of the client-credentials flow (a CI job, a machine).
	ServiceClientID     = "sid1"
	ServiceClientSecret = "verysecret"
	// Password is the password of every user.
	Password = "verysecure"
	// UserName is the login of the user who signs in; its email and name
	// claims are UserEmail and "Test User".
	UserName  = "test-user2"
	UserEmail = "test-user2@zitadel.ch"
)

// Provider is a running OpenID provider.
type Provider struct {
	// Issuer is its issuer URL (http://127.0.0.1:port).
	Issuer string
	// Audience is the aud of every access token it issues.
	Audience string

	server *httptest.Server
	store  *store
	// JWKSRequests counts requests of the key set.
	jwksMu       sync.Mutex
	jwksRequests int
	jwksDown     bool
}

// Start starts a provider whose access tokens carry audience; it stops
// when the test ends.
func Start(t testing.TB, audience string) *Provider {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("testidp: listen: %v", err)
	}
	issuer := "http://" + ln.Addr().String()
	users := storage.NewUserStore(issuer)
	clients := map[string]*storage.Client{NativeClientID: storage.NativeClient(NativeClientID, "http://127.0.0.1/callback")}
	s := &store{Storage: storage.NewStorageWithClients(users, clients), users: users, audience: audience}
	s.rotate()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	prev := slog.Default()
	router := exampleop.SetupServer(issuer, s, logger, false)
	slog.SetDefault(prev) // SetupServer sets the default logger
	p := &Provider{Issuer: issuer, Audience: audience, store: s}
	p.server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/keys" {
			p.jwksMu.Lock()
			p.jwksRequests++
			down := p.jwksDown
			p.jwksMu.Unlock()
			if down {
				http.Error(w, "down for the test", http.StatusServiceUnavailable)
				return
			}
		}
		router.ServeHTTP(w, r)
	}))
	p.server.Listener.Close()
	p.server.Listener = ln
	p.server.Start()
	t.Cleanup(p.server.Close)
	return p
}

// JWKSRequests returns how many times the key set was asked for.
func (p *Provider) JWKSRequests() int {
	p.jwksMu.Lock()
	defer p.jwksMu.Unlock()
	return p.jwksRequests
}

// SetJWKSDown makes the key set answer 503 (down) or answer again.
func (p *Provider) SetJWKSDown(down bool) {
	p.jwksMu.Lock()
	p.jwksDown = down
	p.jwksMu.Unlock()
}

// RotateKeys makes a new signing key; the key set publishes only it from
// now on, so tokens signed before no longer verify once a server reads the
// keys again.
func (p *Provider) RotateKeys() { p.store.rotate() }

// Sign signs claims with the provider's current key, for tokens the flows
// do not make (expired, for another audience...).
func (p *Provider) Sign(claims map[string]any) string {
	k := p.store.current()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: k.key}, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", k.id))
	if err != nil {
		panic(err)
	}
	payload, _ := json.Marshal(claims)
	obj, err := signer.Sign(payload)
	if err != nil {
		panic(err)
	}
	s, _ := obj.CompactSerialize()
	return s
}

// Claims returns valid claims of an access token for the signed-in user
// with the given scopes: a base for tests that change one of them.
func (p *Provider) Claims(scopes ...string) map[string]any {
	now := time.Now()
	return map[string]any{
		"iss": p.Issuer, "sub": "id2", "aud": []string{p.Audience}, "exp": now.Add(5 * time.Minute).Unix(),
		"iat": now.Unix(), "nbf": now.Unix(), "scope": strings.Join(scopes, " "), "email": UserEmail, "name": "Test User2",
	}
}

// Tokens are the answer of the token endpoint.
type Tokens struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
}

// ClientCredentials gets an access token for the service client.
func (p *Provider) ClientCredentials(ctx context.Context, scopes ...string) (Tokens, error) {
	form := url.Values{"grant_type": {"client_credentials"}, "scope": {strings.Join(scopes, " ")}}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, p.Issuer+"/oauth/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(ServiceClientID, ServiceClientSecret)
	return postToken(req)
}

// AuthorizationCode signs UserName in through the authorization-code
// flow with PKCE, as a browser would (the login form posted, the
// redirects followed up to the client's redirect URI), and exchanges the
// code for tokens.
func (p *Provider) AuthorizationCode(ctx context.Context, redirectURI string, scopes ...string) (Tokens, error) {
	verifier := randomString()
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{
		"client_id": {NativeClientID}, "response_type": {"code"}, "redirect_uri": {redirectURI},
		"scope": {strings.Join(append([]string{"openid"}, scopes...), " ")}, "state": {"s1"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
	}
	code, err := p.Browse(ctx, p.Issuer+"/auth?"+q.Encode(), redirectURI)
	if err != nil {
		return Tokens{}, err
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirectURI},
		"client_id": {NativeClientID}, "code_verifier": {verifier}}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, p.Issuer+"/oauth/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return postToken(req)
}

// Browse plays the user's browser from an authorization URL: it follows
// the provider's redirects to its login page, signs UserName in, and
// follows on until a redirect to a URL starting with redirectPrefix,
// whose code it returns (without requesting that URL).
func (p *Provider) Browse(ctx context.Context, authURL, redirectPrefix string) (string, error) {
	u, err := p.follow(ctx, authURL, func(u *url.URL) bool { return strings.HasPrefix(u.String(), redirectPrefix) })
	if err != nil {
		return "", err
	}
	if e := u.Query().Get("error"); e != "" {
		return "", fmt.Errorf("testidp: authorization refused: %s: %s", e, u.Query().Get("error_description"))
	}
	return u.Query().Get("code"), nil
}

// SignIn plays the user's browser for a client that waits on a loopback
// redirect (the shim): it follows the authorization URL through the
// login, signs UserName in, and requests the final redirect to the
// client's own address, as a browser would.
func (p *Provider) SignIn(ctx context.Context, authURL string) error {
	issuer, _ := url.Parse(p.Issuer)
	u, err := p.follow(ctx, authURL, func(u *url.URL) bool { return u.Host != issuer.Host })
	if err != nil {
		return err
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// follow requests authURL and the redirects after it, posting the login
// form when it comes, until a redirect's target satisfies leave, which it
// returns without requesting it.
func (p *Provider) follow(ctx context.Context, authURL string, leave func(*url.URL) bool) (*url.URL, error) {
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	next := authURL
	for range 10 {
		u, err := url.Parse(next)
		if err != nil {
			return nil, err
		}
		if leave(u) {
			return u, nil
		}
		var req *http.Request
		if strings.HasSuffix(u.Path, "/login/username") {
			form := url.Values{"username": {UserName}, "password": {Password}, "id": {u.Query().Get("authRequestID")}}
			req, _ = http.NewRequestWithContext(ctx, http.MethodPost, p.Issuer+"/login/username", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		} else {
			req, _ = http.NewRequestWithContext(ctx, http.MethodGet, next, nil)
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		loc := resp.Header.Get("Location")
		if loc == "" {
			return nil, fmt.Errorf("testidp: %s answered %s without a redirect: %.300s", next, resp.Status, body)
		}
		ref, err := resp.Request.URL.Parse(loc)
		if err != nil {
			return nil, err
		}
		next = ref.String()
	}
	return nil, fmt.Errorf("testidp: too many redirects from %s", authURL)
}

func postToken(req *http.Request) (Tokens, error) {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Tokens{}, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return Tokens{}, fmt.Errorf("testidp: token endpoint: %s: %s", resp.Status, body)
	}
	var t Tokens
	if err := json.Unmarshal(body, &t); err != nil {
		return Tokens{}, err
	}
	return t, nil
}

func randomString() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// store is the example storage with JWT access tokens for one audience,
// the vault scopes, email and name claims, and keys that rotate.
type store struct {
	*storage.Storage
	users    storage.UserStore
	audience string

	mu  sync.Mutex
	key *rsaKey
}

type rsaKey struct {
	id  string
	key *rsa.PrivateKey
}

func (k *rsaKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k *rsaKey) Key() any                                    { return k.key }
func (k *rsaKey) ID() string                                  { return k.id }

type publicKey struct{ k *rsaKey }

func (p publicKey) ID() string                         { return p.k.id }
func (p publicKey) Algorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (p publicKey) Use() string                        { return "sig" }
func (p publicKey) Key() any                           { return &p.k.key.PublicKey }

func (s *store) rotate() {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	s.mu.Lock()
	s.key = &rsaKey{id: randomString()[:12], key: key}
	s.mu.Unlock()
}

func (s *store) current() *rsaKey {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.key
}

func (s *store) SigningKey(context.Context) (op.SigningKey, error) { return s.current(), nil }

func (s *store) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}

func (s *store) KeySet(context.Context) ([]op.Key, error) {
	return []op.Key{publicKey{s.current()}}, nil
}

// jwtClient makes a client's access tokens JWTs and allows the vault
// scopes.
type jwtClient struct{ op.Client }

func (jwtClient) AccessTokenType() op.AccessTokenType { return op.AccessTokenTypeJWT }
func (c jwtClient) IsScopeAllowed(scope string) bool {
	return strings.HasPrefix(scope, "vault:") || c.Client.IsScopeAllowed(scope)
}
func (jwtClient) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}

func (s *store) GetClientByClientID(ctx context.Context, id string) (op.Client, error) {
	c, err := s.Storage.GetClientByClientID(ctx, id)
	if err != nil {
		return nil, err
	}
	return jwtClient{c}, nil
}

func (s *store) ClientCredentials(ctx context.Context, id, secret string) (op.Client, error) {
	c, err := s.Storage.ClientCredentials(ctx, id, secret)
	if err != nil {
		return nil, err
	}
	return jwtClient{c}, nil
}

// ClientCredentialsTokenRequest issues the service client's tokens for
// the audience.
func (s *store) ClientCredentialsTokenRequest(_ context.Context, clientID string, scopes []string) (op.TokenRequest, error) {
	if clientID != ServiceClientID {
		return nil, fmt.Errorf("unknown service client %q", clientID)
	}
	return &oidc.JWTTokenRequest{Subject: clientID, Audience: []string{s.audience}, Scopes: scopes}, nil
}

// audienceRequest adds the resource's audience to an authorization
// request's (the client's own ID).
type audienceRequest struct {
	op.AuthRequest
	audience string
}

func (a audienceRequest) GetAudience() []string {
	return append(a.AuthRequest.GetAudience(), a.audience)
}

func (s *store) wrap(r op.AuthRequest, err error) (op.AuthRequest, error) {
	if err != nil {
		return nil, err
	}
	return audienceRequest{r, s.audience}, nil
}

func (s *store) CreateAuthRequest(ctx context.Context, r *oidc.AuthRequest, userID string) (op.AuthRequest, error) {
	return s.wrap(s.Storage.CreateAuthRequest(ctx, r, userID))
}

func (s *store) AuthRequestByID(ctx context.Context, id string) (op.AuthRequest, error) {
	return s.wrap(s.Storage.AuthRequestByID(ctx, id))
}

func (s *store) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	return s.wrap(s.Storage.AuthRequestByCode(ctx, code))
}

// refreshAudience adds the resource's audience to a refresh request's.
type refreshAudience struct {
	op.RefreshTokenRequest
	audience string
}

func (a refreshAudience) GetAudience() []string {
	return append(a.RefreshTokenRequest.GetAudience(), a.audience)
}

func (s *store) TokenRequestByRefreshToken(ctx context.Context, token string) (op.RefreshTokenRequest, error) {
	r, err := s.Storage.TokenRequestByRefreshToken(ctx, token)
	if err != nil {
		return nil, err
	}
	return refreshAudience{r, s.audience}, nil
}

func unwrap(r op.TokenRequest) op.TokenRequest {
	switch a := r.(type) {
	case audienceRequest:
		return a.AuthRequest
	case refreshAudience:
		return a.RefreshTokenRequest
	}
	return r
}

func (s *store) CreateAccessToken(ctx context.Context, r op.TokenRequest) (string, time.Time, error) {
	return s.Storage.CreateAccessToken(ctx, unwrap(r))
}

func (s *store) CreateAccessAndRefreshTokens(ctx context.Context, r op.TokenRequest, current string) (string, string, time.Time, error) {
	return s.Storage.CreateAccessAndRefreshTokens(ctx, unwrap(r), current)
}

// GetPrivateClaimsFromScopes puts the vault scopes, and the user's email
// and name, in access tokens.
func (s *store) GetPrivateClaimsFromScopes(ctx context.Context, userID, clientID string, scopes []string) (map[string]any, error) {
	claims, err := s.Storage.GetPrivateClaimsFromScopes(ctx, userID, clientID, scopes)
	if err != nil {
		return nil, err
	}
	if claims == nil {
		claims = map[string]any{}
	}
	var vault []string
	for _, sc := range scopes {
		if strings.HasPrefix(sc, "vault:") {
			vault = append(vault, sc)
		}
	}
	if len(vault) > 0 {
		claims["scope"] = strings.Join(vault, " ")
	}
	if u := s.users.GetUserByID(userID); u != nil {
		claims["email"] = u.Email
		claims["name"] = u.FirstName + " " + u.LastName
	}
	return claims, nil
}
