package server_test

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/internal/testidp"
	"github.com/vaultgraph/vaultgraph/server"
)

const oauthAudience = "https://vault.example.test/mcp"

// oauthServer serves a fixture with OAuth against a real OpenID provider
// (and the static tokens beside it).
func oauthServer(t *testing.T, idp *testidp.Provider, tweak func(*server.OAuthOptions)) (*fixture, *httptest.Server) {
	t.Helper()
	o := server.OAuthOptions{Issuer: idp.Issuer, Audience: idp.Audience}
	if tweak != nil {
		tweak(&o)
	}
	f := newFixture(t)
	ts, _ := httpServer(t, f, server.HTTPOptions{Tokens: tokens, OAuth: o})
	return f, ts
}

// post sends a JSON-RPC message to /mcp with a bearer token (none when
// empty) and returns the response.
func post(t *testing.T, ts *httptest.Server, token, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+server.MCPPath, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	var head struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	_ = json.Unmarshal([]byte(body), &head)
	req.Header.Set("Mcp-Method", head.Method)
	if head.Params.Name != "" {
		req.Header.Set("Mcp-Name", head.Params.Name)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

const oauthListTools = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`

func TestOAuthPublishesMetadataAndChallenges(t *testing.T) {
	idp := testidp.Start(t, oauthAudience)
	_, ts := oauthServer(t, idp, nil)

	for _, path := range []string{server.ProtectedResourcePath, server.ProtectedResourcePath + server.MCPPath} {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
			Scopes               []string `json:"scopes_supported"`
		}
		err = json.NewDecoder(resp.Body).Decode(&doc)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %s, %v", path, resp.Status, err)
		}
		if doc.Resource != ts.URL+server.MCPPath || !slices.Equal(doc.AuthorizationServers, []string{idp.Issuer}) ||
			!slices.Equal(doc.Scopes, []string{server.DefaultReadScope, server.DefaultWriteScope}) {
			t.Errorf("GET %s: %+v", path, doc)
		}
	}

	resp := post(t, ts, "", oauthListTools)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no token: %s", resp.Status)
	}
	want := fmt.Sprintf(`resource_metadata=%q`, ts.URL+server.ProtectedResourcePath+server.MCPPath)
	if ch := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(ch, "Bearer ") || !strings.Contains(ch, want) || !strings.Contains(ch, `scope="vault:read"`) || strings.Contains(ch, "error=") {
		t.Errorf("challenge without a token: %q", ch)
	}
}

func TestOAuthTokensOfBothFlowsWork(t *testing.T) {
	idp := testidp.Start(t, oauthAudience)
	f, ts := oauthServer(t, idp, nil)

	user, err := idp.AuthorizationCode(t.Context(), "http://127.0.0.1:49152/callback", "vault:read", "vault:write", "email", "profile")
	if err != nil {
		t.Fatal(err)
	}
	c := httpClient(t, ts, user.AccessToken)
	if res, text := callTool(t, c, "create_node", map[string]any{"title": "Signed In", "content": "by a person"}); res.IsError {
		t.Fatalf("a write token's create_node: %s", text)
	}
	if !slices.Contains(f.vaultFiles(t), "Signed In.md") && !slices.Contains(f.vaultFiles(t), "signed-in.md") {
		t.Errorf("the note was not written: %v", f.vaultFiles(t))
	}
	// The change log names the person (issue 46.2).
	for path, a := range f.actors() {
		if a != (core.Actor{ID: "id2", Email: testidp.UserEmail, Name: "Test User2"}) {
			t.Errorf("%s logged as made by %+v, want the signed-in user", path, a)
		}
	}

	// The service client, with the read scope only: reads work, a write
	// gets 403 insufficient_scope before any tool runs.
	svc, err := idp.ClientCredentials(t.Context(), "vault:read")
	if err != nil {
		t.Fatal(err)
	}
	r := httpClient(t, ts, svc.AccessToken)
	if _, text := callTool(t, r, "get_node", map[string]any{"id": "notes/node.md"}); text == "null" {
		t.Fatal("a read token cannot read")
	}
	before := f.vaultFiles(t)
	resp := post(t, ts, svc.AccessToken, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_node","arguments":{"title":"Sneaky","content":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a read token's create_node: %s", resp.Status)
	}
	ch := resp.Header.Get("WWW-Authenticate")
	if !strings.Contains(ch, `error="insufficient_scope"`) || !strings.Contains(ch, `scope="vault:read vault:write"`) || !strings.Contains(ch, "resource_metadata=") {
		t.Errorf("insufficient scope challenge: %q", ch)
	}
	if after := f.vaultFiles(t); !slices.Equal(before, after) {
		t.Errorf("a refused write changed files: %v -> %v", before, after)
	}

	// The static tokens keep working beside OAuth.
	f.actors()
	if res, _ := callTool(t, httpClient(t, ts, writeToken), "create_node", map[string]any{"title": "By Token", "content": "x"}); res.IsError {
		t.Error("a static token stopped working with OAuth on")
	}
	for path, a := range f.actors() {
		if a.ID != "token:1" {
			t.Errorf("%s logged as made by %+v, want token:1 (the first of http.tokens)", path, a)
		}
	}
}

// alg:none and another key's signature, with everything else right.
func unsignedToken(claims map[string]any) string {
	h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))
	p, _ := json.Marshal(claims)
	return h + "." + base64.RawURLEncoding.EncodeToString(p) + "."
}

func foreignToken(t *testing.T, claims map[string]any, kid string) string {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key}, (&jose.SignerOptions{}).WithHeader("kid", kid))
	p, _ := json.Marshal(claims)
	obj, _ := signer.Sign(p)
	s, _ := obj.CompactSerialize()
	return s
}

func TestOAuthRefusesEveryBadToken(t *testing.T) {
	idp := testidp.Start(t, oauthAudience)
	f, ts := oauthServer(t, idp, nil)
	good := idp.Claims("vault:read", "vault:write")
	with := func(k string, v any) map[string]any {
		c := map[string]any{}
		for kk, vv := range good {
			c[kk] = vv
		}
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
		return c
	}
	// The provider's real kid, for the forged token to claim.
	kid := func() string {
		parts := strings.Split(idp.Sign(good), ".")
		h, _ := base64.RawURLEncoding.DecodeString(parts[0])
		var head struct{ Kid string }
		_ = json.Unmarshal(h, &head)
		return head.Kid
	}()
	if resp := post(t, ts, idp.Sign(good), oauthListTools); resp.StatusCode != 200 {
		t.Fatalf("the good token itself is refused: %s", resp.Status)
	}
	hour := time.Hour
	cases := []struct {
		name, token, want string
		status            int
	}{
		{"another key with the provider's kid", foreignToken(t, good, kid), "signature", 401},
		{"expired", idp.Sign(with("exp", time.Now().Add(-hour).Unix())), "expired", 401},
		{"no expiry", idp.Sign(with("exp", nil)), "no expiry", 401},
		{"another audience", idp.Sign(with("aud", []string{"https://other.example/mcp"})), "another audience", 401},
		{"another issuer", idp.Sign(with("iss", "https://evil.example")), "another authorization server", 401},
		{"clock skew beyond the leeway", idp.Sign(with("nbf", time.Now().Add(10*time.Minute).Unix())), "not valid yet", 401},
		{"alg none", unsignedToken(good), "not a JWT", 401},
		{"not a JWT", "hello.world", "not a JWT", 401},
		{"no subject", idp.Sign(with("sub", nil)), "no subject", 401},
		{"huge", strings.Repeat("a", 20<<10), "too large", 401},
		{"no vault scope", idp.Sign(with("scope", "openid email")), "grants neither", 403},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := post(t, ts, c.token, oauthListTools)
			var body struct {
				Error struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			_ = json.NewDecoder(resp.Body).Decode(&body)
			if resp.StatusCode != c.status || !strings.Contains(body.Error.Message, c.want) {
				t.Errorf("%s: %s %q, want %d with %q", c.name, resp.Status, body.Error.Message, c.status, c.want)
			}
			ch := resp.Header.Get("WWW-Authenticate")
			code := "invalid_token"
			if c.status == 403 {
				code = "insufficient_scope"
			}
			if !strings.Contains(ch, `error="`+code+`"`) || !strings.Contains(ch, "resource_metadata=") {
				t.Errorf("%s: challenge %q", c.name, ch)
			}
		})
	}
	if len(f.vaultFiles(t)) != len(seedFiles) {
		t.Error("a refused request wrote")
	}
	for _, h := range []string{"Basic dXNlcjpwYXNz", "Bearer", "Bearer    ", "bearer-ish token"} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+server.MCPPath, strings.NewReader(oauthListTools))
		req.Header.Set("Authorization", h)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 401 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "resource_metadata=") {
			t.Errorf("Authorization %q: %s %q", h, resp.Status, resp.Header.Get("WWW-Authenticate"))
		}
	}
}

func TestOAuthFollowsAKeyRotation(t *testing.T) {
	idp := testidp.Start(t, oauthAudience)
	_, ts := oauthServer(t, idp, func(o *server.OAuthOptions) { o.KeyRefreshInterval = -1 })
	first, err := idp.ClientCredentials(t.Context(), "vault:read")
	if err != nil {
		t.Fatal(err)
	}
	c := httpClient(t, ts, first.AccessToken)
	toolNames(t, c)

	idp.RotateKeys()
	second, err := idp.ClientCredentials(t.Context(), "vault:read")
	if err != nil {
		t.Fatal(err)
	}
	if resp := post(t, ts, second.AccessToken, oauthListTools); resp.StatusCode != 200 {
		t.Fatalf("a token of the new key: %s", resp.Status)
	}
	// The provider no longer publishes the old key: its tokens stop.
	if resp := post(t, ts, first.AccessToken, oauthListTools); resp.StatusCode != 401 {
		t.Errorf("a token of the retired key after the rotation: %s", resp.Status)
	}
}

func TestOAuthKeyFetchesAreBoundedAndSurviveTheProviderGoingDown(t *testing.T) {
	idp := testidp.Start(t, oauthAudience)
	_, ts := oauthServer(t, idp, func(o *server.OAuthOptions) { o.KeyRefreshInterval = time.Hour })
	good := idp.Sign(idp.Claims("vault:read"))
	if resp := post(t, ts, good, oauthListTools); resp.StatusCode != 200 {
		t.Fatalf("good token: %s", resp.Status)
	}
	fetched := idp.JWKSRequests()

	// Tokens naming made-up keys: refused, and no fetch each.
	for i := range 20 {
		if resp := post(t, ts, foreignToken(t, idp.Claims("vault:read"), fmt.Sprintf("made-up-%d", i)), oauthListTools); resp.StatusCode != 401 {
			t.Fatalf("made-up kid: %s", resp.Status)
		}
	}
	if n := idp.JWKSRequests() - fetched; n > 1 {
		t.Errorf("20 unknown key IDs caused %d key fetches; want at most 1 per refresh interval", n)
	}

	// The key set down: the keys fetched before keep working.
	idp.SetJWKSDown(true)
	if resp := post(t, ts, good, oauthListTools); resp.StatusCode != 200 {
		t.Errorf("with the key set down, a token of a known key: %s", resp.Status)
	}

	// A server that never read the keys answers 503, not 401, and says why.
	_, cold := oauthServer(t, idp, nil)
	resp := post(t, cold, good, oauthListTools)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("no keys ever read: %s", resp.Status)
	}
}

func TestOAuthRefusesPlainHTTPOffLoopback(t *testing.T) {
	idp := testidp.Start(t, oauthAudience)
	o := server.OAuthOptions{Issuer: idp.Issuer, Audience: oauthAudience}
	_, err := server.NewHTTPServer(nil, server.HTTPOptions{Addr: "0.0.0.0:8765", OAuth: o})
	if !errors.Is(err, server.ErrOAuthPlainHTTP) || !strings.Contains(err.Error(), "http.behind_proxy") {
		t.Errorf("plain HTTP off loopback: %v", err)
	}
	o.BehindProxy = true
	if _, err := server.NewHTTPServer(nil, server.HTTPOptions{Addr: "0.0.0.0:8765", OAuth: o}); err != nil {
		t.Errorf("behind a proxy: %v", err)
	}
	if _, err := server.NewHTTPServer(nil, server.HTTPOptions{Addr: "127.0.0.1:0", OAuth: server.OAuthOptions{Issuer: idp.Issuer}}); err == nil || !strings.Contains(err.Error(), "http.oauth.audience") {
		t.Errorf("no audience: %v", err)
	}
	if _, err := server.NewHTTPServer(nil, server.HTTPOptions{Addr: "127.0.0.1:0", OAuth: server.OAuthOptions{Issuer: "login.example.com", Audience: "x"}}); err == nil || !strings.Contains(err.Error(), "http.oauth.issuer") {
		t.Errorf("issuer without a scheme: %v", err)
	}
}

// The discovery of an issuer that serves only RFC 8414 metadata, and a
// slow one, are bounded.
func TestOAuthDiscoveryFallsBackAndIsBounded(t *testing.T) {
	idp := testidp.Start(t, oauthAudience)
	// A proxy of the provider that hides OpenID discovery and serves its
	// metadata at the RFC 8414 address instead.
	var proxyURL string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/openid-configuration":
			http.NotFound(w, r)
		case "/.well-known/oauth-authorization-server":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"issuer":%q,"jwks_uri":%q}`, proxyURL, idp.Issuer+"/keys")
		}
	}))
	defer proxy.Close()
	proxyURL = proxy.URL
	_, ts := oauthServer(t, idp, func(o *server.OAuthOptions) { o.Issuer = proxyURL })
	claims := idp.Claims("vault:read")
	claims["iss"] = proxyURL
	if resp := post(t, ts, idp.Sign(claims), oauthListTools); resp.StatusCode != 200 {
		t.Errorf("RFC 8414 metadata: %s", resp.Status)
	}

	hang := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-hang }))
	defer slow.Close()
	defer close(hang)
	_, ts2 := oauthServer(t, idp, func(o *server.OAuthOptions) {
		o.Issuer = slow.URL
		o.HTTPClient = &http.Client{Timeout: 200 * time.Millisecond}
	})
	resp := post(t, ts2, idp.Sign(claims), oauthListTools)
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("hanging authorization server: %s", resp.Status)
	}
}

// Without tokens (loopback) and over stdio, a write is the local user's.
func TestWritesWithoutATokenAreLocal(t *testing.T) {
	f := newFixture(t)
	ts, _ := httpServer(t, f, server.HTTPOptions{})
	if res, text := callTool(t, httpClient(t, ts, ""), "create_node", map[string]any{"title": "Mine", "content": "x"}); res.IsError {
		t.Fatal(text)
	}
	got := f.actors()
	if len(got) == 0 {
		t.Fatal("nothing logged")
	}
	for path, a := range got {
		if a != core.ActorLocal {
			t.Errorf("%s logged as made by %+v, want local", path, a)
		}
	}
}

// lockedBuffer is a bytes.Buffer safe for a logger and a test at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Issue 46, bad input: each refusal (a malformed header, a huge token, a
// clock skew beyond the leeway, a key set never read) is a 401 or 503 and
// a log line that says why, and no log line holds the token.
func TestOAuthRefusalsAreLoggedWithoutTheToken(t *testing.T) {
	idp := testidp.Start(t, oauthAudience)
	var logs lockedBuffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	f := newFixture(t)
	ts, _ := httpServer(t, f, server.HTTPOptions{Tokens: tokens, Logger: logger, OAuth: server.OAuthOptions{Issuer: idp.Issuer, Audience: idp.Audience}})
	skewed := idp.Claims("vault:read")
	skewed["nbf"] = time.Now().Add(10 * time.Minute).Unix()
	skewedToken := idp.Sign(skewed)
	huge := strings.Repeat("h", 20<<10)
	for _, c := range []struct{ name, header, reason string }{
		{"malformed header", "Basic dXNlcjpwYXNz", "not a bearer token"},
		{"huge token", "Bearer " + huge, "too large"},
		{"clock skew", "Bearer " + skewedToken, "not valid yet"},
	} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+server.MCPPath, strings.NewReader(oauthListTools))
		req.Header.Set("Authorization", c.header)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: %s, want 401", c.name, resp.Status)
		}
		if !strings.Contains(logs.String(), c.reason) {
			t.Errorf("%s: no log line says %q:\n%s", c.name, c.reason, logs.String())
		}
	}

	// A server that never read the keys, the key set down: 503, and a
	// warning naming the issuer.
	idp.SetJWKSDown(true)
	cold, _ := httpServer(t, f, server.HTTPOptions{Tokens: tokens, Logger: logger, OAuth: server.OAuthOptions{Issuer: idp.Issuer, Audience: idp.Audience}})
	good := idp.Sign(idp.Claims("vault:read"))
	if resp := post(t, cold, good, oauthListTools); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("key set down, none read: %s, want 503", resp.Status)
	}
	if !strings.Contains(logs.String(), "cannot read the authorization server's keys") {
		t.Errorf("no warning about the key set:\n%s", logs.String())
	}
	for _, secret := range []string{skewedToken, good, huge[:64], "dXNlcjpwYXNz"} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("a log line holds a token (%.20s…)", secret)
		}
	}
}
