package e2e

import (
	"bufio"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/internal/testidp"
	"github.com/vaultgraph/vaultgraph/internal/testwait"
)

// Issue 46.4: `vaultgraph shim --login` signs in to a serve --http that
// uses OAuth (a real OpenID provider), caches the tokens, and the shim a
// desktop client starts then reads and writes with them; a write beyond the
// signed-in scope makes the shim sign in again for it (step-up). The token
// never appears in the shim's output.
func TestShimSignsInToAnOAuthServer(t *testing.T) {
	t.Parallel()
	idp := testidp.Start(t, "https://vault.example.test/mcp")
	st := embeddedStore(t)
	vault := copyVault(t, nil)
	env := processEnv(t, st, "VAULTGRAPH_HTTP_OAUTH_ISSUER="+idp.Issuer, "VAULTGRAPH_HTTP_OAUTH_AUDIENCE="+idp.Audience)
	p := startProc(t, env, nil, append([]string{"serve", "--vault", vault, "--http", "127.0.0.1:0"}, st.args...)...)
	fields := p.waitLog(t, "serving MCP over HTTP", readyTimeout)
	addr, _ := fields["addr"].(string)
	h := &httpServer{proc: p, addr: addr}
	h.waitReady(t)

	// The shim's environment: no token, no display (it prints the URL),
	// its own config folder for the token cache.
	var shimEnv []string
	for _, kv := range baseEnv(t) {
		if !strings.HasPrefix(kv, "DISPLAY=") && !strings.HasPrefix(kv, "WAYLAND_DISPLAY=") && !strings.HasPrefix(kv, "BROWSER=") {
			shimEnv = append(shimEnv, kv)
		}
	}
	signIn := func(args ...string) string {
		t.Helper()
		login := startProc(t, shimEnv, nil, append([]string{"shim", "--url", h.url(), "--client-id", testidp.NativeClientID}, args...)...)
		var authURL string
		if !eventually(readyTimeout, func() bool {
			sc := bufio.NewScanner(strings.NewReader(login.stderr.String()))
			for sc.Scan() {
				if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, idp.Issuer) {
					authURL = line
					return true
				}
			}
			return false
		}) {
			t.Fatalf("the shim printed no sign-in address:\n%s", login.stderr.String())
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := idp.SignIn(ctx, authURL); err != nil {
			t.Fatalf("sign in: %v", err)
		}
		return authURL
	}

	authURL := signIn("--login")
	if !strings.Contains(authURL, "code_challenge=") || !strings.Contains(authURL, "code_challenge_method=S256") {
		t.Errorf("the authorization request has no PKCE: %s", authURL)
	}

	c, sp := stdioClient(t, shimEnv, []string{"shim", "--url", h.url(), "--client-id", testidp.NativeClientID})
	initialize(t, c)
	if n := getNode(t, c, map[string]any{"id": "home.md"}); n == nil {
		t.Fatalf("the signed-in shim cannot read; stderr:\n%s", sp.stderr.String())
	}

	// The first sign-in asked for the read scope the server's challenge
	// named; a write makes the shim ask for write too. The browser is
	// played by the test again.
	done := make(chan reply, 1)
	go func() {
		done <- callTool(t, c, "create_node", map[string]any{"title": "From The Shim", "content": "signed in"})
	}()
	var stepURL string
	if !eventually(readyTimeout, func() bool {
		for _, line := range strings.Split(sp.stderr.String(), "\n") {
			if line = strings.TrimSpace(line); strings.HasPrefix(line, idp.Issuer) {
				stepURL = line
				return true
			}
		}
		return false
	}) {
		t.Fatalf("the shim did not ask for more scope:\n%s", sp.stderr.String())
	}
	if !strings.Contains(stepURL, "vault%3Awrite") {
		t.Errorf("the step-up does not ask for vault:write: %s", stepURL)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := idp.SignIn(ctx, stepURL); err != nil {
		t.Fatal(err)
	}
	if r := testwait.Recv(t, done, "the write after the step-up"); r.isError {
		t.Fatalf("the write after the step-up: %s", r.text)
	}
	if !fileExists(vault, "From The Shim.md") && !fileExists(vault, "from-the-shim.md") {
		t.Error("the note was not written")
	}
	if strings.Contains(sp.stderr.String(), "eyJ") {
		t.Error("the shim printed a token")
	}

	// --logout forgets the tokens.
	if code, _, stderr := runProc(t, shimEnv, "shim", "--url", h.url(), "--logout"); code != 0 || !strings.Contains(stderr, "signed out") {
		t.Fatalf("--logout: exit %d\n%s", code, stderr)
	}
}
