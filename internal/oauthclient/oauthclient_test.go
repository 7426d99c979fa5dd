package oauthclient_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/internal/oauthclient"
	"github.com/vaultgraph/vaultgraph/internal/testidp"
	"github.com/vaultgraph/vaultgraph/server"
)

// A server with OAuth against a real OpenID provider, and a client of it
// whose "browser" is the provider's own login driven by the test.
func setup(t *testing.T) (*testidp.Provider, *httptest.Server, *oauthclient.Client, string) {
	t.Helper()
	idp := testidp.Start(t, "https://vault.example.test/mcp")
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	h, err := server.NewHTTPServer(mcpserver.NewMCPServer("test", "1"), server.HTTPOptions{Addr: "127.0.0.1:0", Logger: quiet,
		OAuth: server.OAuthOptions{Issuer: idp.Issuer, Audience: idp.Audience}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h.Handler())
	t.Cleanup(ts.Close)
	dir := t.TempDir()
	c := oauthclient.New(oauthclient.Options{ServerURL: ts.URL + server.MCPPath, ClientID: testidp.NativeClientID, CacheDir: dir, Logger: quiet,
		Prompt: io.Discard,
		Open: func(u string) error {
			go func() {
				if err := idp.SignIn(context.Background(), u); err != nil {
					t.Errorf("sign in: %v", err)
				}
			}()
			return nil
		}})
	return idp, ts, c, dir
}

func ping(t *testing.T, ts *httptest.Server, token string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, ts.URL+server.MCPPath, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestSignInDiscoversCachesRefreshesAndForgets(t *testing.T) {
	_, ts, c, dir := setup(t)
	if _, err := c.Token(t.Context()); !errors.Is(err, oauthclient.ErrLoginNeeded) {
		t.Fatalf("before sign-in: %v", err)
	}
	if err := c.Login(t.Context(), "vault:read", "vault:write"); err != nil {
		t.Fatal(err)
	}
	tok, err := c.Token(t.Context())
	if err != nil || tok == "" {
		t.Fatalf("token after sign-in: %v", err)
	}
	if code := ping(t, ts, tok); code == http.StatusUnauthorized || code == http.StatusForbidden {
		t.Fatalf("the server refused the signed-in token: %d", code)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("cache folder holds %d files", len(entries))
	}
	info, _ := entries[0].Info()
	if info.Mode().Perm() != 0o600 {
		t.Errorf("token cache mode %v, want 0600", info.Mode().Perm())
	}

	// After a 401 the client refreshes: a new access token that works.
	again, err := c.Refresh(t.Context())
	if err != nil || again == "" || again == tok {
		t.Fatalf("refresh: %v (same token: %v)", err, again == tok)
	}
	if code := ping(t, ts, again); code == http.StatusUnauthorized {
		t.Fatal("the refreshed token is refused")
	}

	if err := c.Logout(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Token(t.Context()); !errors.Is(err, oauthclient.ErrLoginNeeded) {
		t.Fatalf("after logout: %v", err)
	}
}

func TestSignInOfAServerWithoutOAuthSaysSo(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) }))
	defer ts.Close()
	c := oauthclient.New(oauthclient.Options{ServerURL: ts.URL + "/mcp", ClientID: "x", CacheDir: t.TempDir(), Prompt: io.Discard})
	if err := c.Login(t.Context()); err == nil || !strings.Contains(err.Error(), "does not ask for sign-in") {
		t.Fatalf("login to a server without OAuth: %v", err)
	}
}
