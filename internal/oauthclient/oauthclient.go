// Package oauthclient signs a person in to a vaultgraph HTTP server that
// uses OAuth, as the MCP authorization spec describes for clients: it finds
// the authorization server from the server's 401 (WWW-Authenticate
// resource_metadata) and the Protected Resource Metadata (RFC 9728), runs
// the authorization-code flow with PKCE through a loopback redirect
// (RFC 8252: it opens the browser, or prints the URL when it cannot),
// caches the tokens in a 0600 file of the user's config folder, and
// refreshes them. The shim uses it; tokens are never printed or logged.
package oauthclient

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// ErrLoginNeeded reports that no token is cached (or it can no longer be
// refreshed): `vaultgraph shim --login` signs in.
var ErrLoginNeeded = errors.New("oauthclient: not signed in to this server; run vaultgraph shim --login --url URL")

// Options configure a Client.
type Options struct {
	// ServerURL is the vaultgraph MCP endpoint (https://host/mcp).
	ServerURL string
	// ClientID is the OAuth client the authorization server knows
	// vaultgraph's shim by (a public client with PKCE and a loopback
	// redirect).
	ClientID string
	// CacheDir holds the cached tokens, one file per server URL.
	CacheDir string
	// Open opens a URL in the user's browser; nil uses the OS's opener
	// (xdg-open, open, rundll32), and prints the URL to Prompt when that
	// fails.
	Open func(url string) error
	// Prompt receives what the person must read (the URL to open); nil is
	// standard error.
	Prompt io.Writer
	// HTTPClient makes every request; nil is a client with a 30 s timeout.
	HTTPClient *http.Client
	// Logger receives what happened, never a token.
	Logger *slog.Logger
}

// Client gets access tokens for one server.
type Client struct {
	opts Options
	mu   sync.Mutex
}

// New returns a Client.
func New(opts Options) *Client {
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if opts.Prompt == nil {
		opts.Prompt = os.Stderr
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Client{opts: opts}
}

// cache is what is kept on disk: the tokens, and where to refresh them.
type cache struct {
	Token    *oauth2.Token `json:"token"`
	TokenURL string        `json:"token_url"`
	AuthURL  string        `json:"auth_url"`
	ClientID string        `json:"client_id"`
	Resource string        `json:"resource"`
	Scopes   []string      `json:"scopes"`
}

// cacheFile is the server's token file: named by a hash of its URL, so
// the URL (which may carry a team's host name) does not show in a listing.
func (c *Client) cacheFile() string {
	sum := sha256.Sum256([]byte(c.opts.ServerURL))
	return filepath.Join(c.opts.CacheDir, "oauth-"+hex.EncodeToString(sum[:8])+".json")
}

func (c *Client) load() (*cache, error) {
	raw, err := os.ReadFile(c.cacheFile())
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrLoginNeeded
	}
	if err != nil {
		return nil, fmt.Errorf("oauthclient: read the token cache: %w", err)
	}
	var k cache
	if err := json.Unmarshal(raw, &k); err != nil || k.Token == nil {
		return nil, ErrLoginNeeded
	}
	return &k, nil
}

// save writes the cache atomically, readable by the user alone.
func (c *Client) save(k *cache) error {
	if err := os.MkdirAll(c.opts.CacheDir, 0o700); err != nil {
		return fmt.Errorf("oauthclient: create %s: %w", c.opts.CacheDir, err)
	}
	raw, err := json.Marshal(k)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(c.opts.CacheDir, ".oauth-*")
	if err != nil {
		return fmt.Errorf("oauthclient: write the token cache: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(raw); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), c.cacheFile())
}

func (k *cache) config() *oauth2.Config {
	return &oauth2.Config{ClientID: k.ClientID, Scopes: k.Scopes,
		Endpoint: oauth2.Endpoint{AuthURL: k.AuthURL, TokenURL: k.TokenURL, AuthStyle: oauth2.AuthStyleInParams}}
}

// Token returns a valid access token: the cached one, refreshed when it
// has expired; ErrLoginNeeded when there is none.
func (c *Client) Token(ctx context.Context) (string, error) {
	return c.token(ctx, false)
}

// Refresh returns a new access token after the server refused the cached
// one (401), from the refresh token; ErrLoginNeeded when it cannot.
func (c *Client) Refresh(ctx context.Context) (string, error) {
	return c.token(ctx, true)
}

func (c *Client) token(ctx context.Context, force bool) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, err := c.load()
	if err != nil {
		return "", err
	}
	tok := *k.Token
	if force {
		tok.Expiry = time.Unix(1, 0) // make the token source refresh
		tok.AccessToken = ""
	}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, c.opts.HTTPClient)
	next, err := k.config().TokenSource(ctx, &tok).Token()
	if err != nil {
		c.opts.Logger.Info("oauth: the token cannot be refreshed; sign in again", "server", c.opts.ServerURL, "err", err)
		return "", ErrLoginNeeded
	}
	if next.AccessToken != k.Token.AccessToken {
		k.Token = next
		if err := c.save(k); err != nil {
			return "", err
		}
		c.opts.Logger.Info("oauth: access token refreshed", "server", c.opts.ServerURL, "expires", next.Expiry)
	}
	return next.AccessToken, nil
}

// Logout forgets the cached tokens of the server.
func (c *Client) Logout() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	err := os.Remove(c.cacheFile())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// discovery is what the sign-in needs to know.
type discovery struct {
	resource, authURL, tokenURL string
	scopes                      []string
}

// discover asks the server (a request without a token gets 401 naming
// the resource metadata), reads the Protected Resource Metadata, then the
// authorization server's metadata (RFC 8414, else OpenID discovery).
func (c *Client) discover(ctx context.Context) (*discovery, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.opts.ServerURL, strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := c.opts.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("oauthclient: reach %s: %w", c.opts.ServerURL, err)
	}
	resp.Body.Close()
	params := challengeParams(resp.Header.Get("WWW-Authenticate"))
	metaURL := params["resource_metadata"]
	if resp.StatusCode != http.StatusUnauthorized || metaURL == "" {
		u, _ := url.Parse(c.opts.ServerURL)
		if resp.StatusCode != http.StatusUnauthorized {
			return nil, fmt.Errorf("oauthclient: %s answered %s without a token: it does not ask for sign-in", c.opts.ServerURL, resp.Status)
		}
		metaURL = (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/.well-known/oauth-protected-resource" + u.Path}).String()
	}
	var prm struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
		Scopes               []string `json:"scopes_supported"`
	}
	if err := c.getJSON(ctx, metaURL, &prm); err != nil {
		return nil, err
	}
	if len(prm.AuthorizationServers) == 0 {
		return nil, fmt.Errorf("oauthclient: %s names no authorization server", metaURL)
	}
	issuer := strings.TrimSuffix(prm.AuthorizationServers[0], "/")
	iu, err := url.Parse(issuer)
	if err != nil || iu.Host == "" {
		return nil, fmt.Errorf("oauthclient: authorization server %q is not a URL", issuer)
	}
	var asm struct {
		Issuer   string `json:"issuer"`
		AuthURL  string `json:"authorization_endpoint"`
		TokenURL string `json:"token_endpoint"`
	}
	rfc8414 := (&url.URL{Scheme: iu.Scheme, Host: iu.Host, Path: "/.well-known/oauth-authorization-server" + iu.Path}).String()
	if err := c.getJSON(ctx, rfc8414, &asm); err != nil || asm.AuthURL == "" {
		if err := c.getJSON(ctx, issuer+"/.well-known/openid-configuration", &asm); err != nil {
			return nil, err
		}
	}
	if asm.AuthURL == "" || asm.TokenURL == "" {
		return nil, fmt.Errorf("oauthclient: the metadata of %s has no authorization or token endpoint", issuer)
	}
	d := &discovery{resource: prm.Resource, authURL: asm.AuthURL, tokenURL: asm.TokenURL}
	// The challenge's scope first, else every scope the resource lists
	// (the spec's order); openid lets OpenID providers accept the request, offline_access asks for a refresh token.
	if s := params["scope"]; s != "" {
		d.scopes = strings.Fields(s)
	} else {
		d.scopes = prm.Scopes
	}
	d.scopes = append([]string{"openid", "offline_access"}, d.scopes...)
	return d, nil
}

// Login signs the person in: it opens the authorization server's page in
// the browser (or prints its URL), waits for the redirect to a loopback
// port with the code, exchanges it with the PKCE verifier, and caches the
// tokens. scopes, when given, replace the discovered ones (e.g. to ask
// for write as well as read).
func (c *Client) Login(ctx context.Context, scopes ...string) error {
	d, err := c.discover(ctx)
	if err != nil {
		return err
	}
	if len(scopes) > 0 {
		d.scopes = append([]string{"openid", "offline_access"}, scopes...)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("oauthclient: listen for the redirect: %w", err)
	}
	defer ln.Close()
	k := &cache{TokenURL: d.tokenURL, AuthURL: d.authURL, ClientID: c.opts.ClientID, Resource: d.resource, Scopes: d.scopes}
	cfg := k.config()
	cfg.RedirectURL = "http://" + ln.Addr().String() + "/callback"
	verifier := oauth2.GenerateVerifier()
	state := randomState()
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier)}
	if d.resource != "" {
		opts = append(opts, oauth2.SetAuthURLParam("resource", d.resource)) // RFC 8707
	}
	authURL := cfg.AuthCodeURL(state, opts...)

	type result struct {
		code string
		err  error
	}
	done := make(chan result, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		var res result
		switch {
		case q.Get("state") != state:
			res.err = errors.New("oauthclient: the redirect's state does not match the sign-in's; try again")
		case q.Get("error") != "":
			res.err = fmt.Errorf("oauthclient: the authorization server refused: %s %s", q.Get("error"), q.Get("error_description"))
		case q.Get("code") == "":
			res.err = errors.New("oauthclient: the redirect carries no code")
		default:
			res.code = q.Get("code")
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if res.err != nil {
			fmt.Fprintf(w, "<p>Sign-in failed: %s</p>", html.EscapeString(res.err.Error()))
		} else {
			fmt.Fprint(w, "<p>Signed in to vaultgraph. You can close this tab.</p>")
		}
		select {
		case done <- res:
		default:
		}
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	open := c.opts.Open
	if open == nil {
		open = openBrowser
	}
	fmt.Fprintf(c.opts.Prompt, "vaultgraph: sign in to %s in your browser.\n", c.opts.ServerURL)
	if err := open(authURL); err != nil {
		fmt.Fprintf(c.opts.Prompt, "vaultgraph: open this address to sign in:\n%s\n", authURL)
	}
	var res result
	select {
	case res = <-done:
	case <-ctx.Done():
		return fmt.Errorf("oauthclient: sign-in not finished: %w", ctx.Err())
	}
	if res.err != nil {
		return res.err
	}
	xctx := context.WithValue(ctx, oauth2.HTTPClient, c.opts.HTTPClient)
	tok, err := cfg.Exchange(xctx, res.code, oauth2.VerifierOption(verifier))
	if err != nil {
		return fmt.Errorf("oauthclient: exchange the code for tokens: %w", err)
	}
	k.Token = tok
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.save(k); err != nil {
		return err
	}
	c.opts.Logger.Info("oauth: signed in", "server", c.opts.ServerURL, "expires", tok.Expiry, "refreshable", tok.RefreshToken != "")
	return nil
}

func (c *Client) getJSON(ctx context.Context, u string, into any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.opts.HTTPClient.Do(req)
	if err != nil {
		return fmt.Errorf("oauthclient: GET %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("oauthclient: GET %s: %s", u, resp.Status)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(into)
}

// challengeParams reads the auth-params of a Bearer challenge.
func challengeParams(h string) map[string]string {
	out := map[string]string{}
	h = strings.TrimSpace(h)
	if len(h) < 7 || !strings.EqualFold(h[:7], "Bearer ") {
		return out
	}
	rest := h[7:]
	for rest != "" {
		rest = strings.TrimLeft(rest, " ,")
		name, after, ok := strings.Cut(rest, "=")
		if !ok {
			break
		}
		name = strings.TrimSpace(name)
		var value string
		if strings.HasPrefix(after, `"`) {
			end := 1
			for end < len(after) && after[end] != '"' {
				if after[end] == '\\' {
					end++
				}
				end++
			}
			value = strings.ReplaceAll(after[1:min(end, len(after))], `\"`, `"`)
			rest = after[min(end+1, len(after)):]
		} else {
			value, rest, _ = strings.Cut(after, ",")
		}
		out[strings.ToLower(name)] = strings.TrimSpace(value)
	}
	return out
}

func randomState() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// openBrowser opens u with the OS's opener, or $BROWSER when set.
func openBrowser(u string) error {
	if b := os.Getenv("BROWSER"); b != "" {
		return exec.Command(b, u).Start()
	}
	switch runtime.GOOS {
	case "darwin":
		return exec.Command("open", u).Start()
	case "windows":
		return exec.Command("rundll32", "url.dll,FileProtocolHandler", u).Start()
	default:
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return errors.New("no display")
		}
		return exec.Command("xdg-open", u).Start()
	}
}

// StepUp signs in again asking for the scopes of a 403 insufficient_scope
// challenge (the value of its WWW-Authenticate header).
func (c *Client) StepUp(ctx context.Context, challenge string) error {
	scopes := strings.Fields(challengeParams(challenge)["scope"])
	if len(scopes) == 0 {
		return errors.New("oauthclient: the server refused for lack of scope but named none")
	}
	return c.Login(ctx, scopes...)
}
