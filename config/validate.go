package config

import (
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Problem is one thing wrong with the configuration.
type Problem struct {
	// Key is the dotted key ("neo4j.uri"), with an index for a list element
	// ("http.tokens[1]"), or "config file" for a problem with the file.
	Key string
	// Message names the value (secrets redacted) and says what is allowed.
	Message string
	// Origin says where the value came from ("env VAULTGRAPH_STORE", a file
	// path, "flag --store"); "" when unknown or the default.
	Origin string
}

// String is the problem as one line: "key: message".
func (p Problem) String() string { return p.Key + ": " + p.Message }

// Line is String plus, when known, where the value came from.
func (p Problem) Line() string {
	if p.Origin == "" || p.Origin == originDefault {
		return p.String()
	}
	return p.String() + " (from " + p.Origin + ")"
}

// Error lists every problem Load or Validate found. Callers detect it with
// errors.As; the CLI prints one Line per problem and exits with code 2.
type Error struct {
	Problems []Problem
}

func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.Line()
	}
	noun := "problems"
	if len(lines) == 1 {
		noun = "problem"
	}
	return fmt.Sprintf("config: %d %s: %s", len(lines), noun, strings.Join(lines, "; "))
}

// IsConfigError reports whether err is, or wraps, an *Error.
func IsConfigError(err error) bool {
	var ce *Error
	return errors.As(err, &ce)
}

// errorOf returns an *Error for problems, or nil when there are none.
func errorOf(problems []Problem) error {
	if len(problems) == 0 {
		return nil
	}
	return &Error{Problems: problems}
}

// Validate reports every problem with c's values (not only the first), as
// an *Error. Load validates already; Validate is for a Config built or
// changed in code. It does not require a vault; see LoadOptions.RequireVault.
func (c *Config) Validate() error {
	return errorOf(c.problems(nil, false))
}

// problems validates every key not in skip (keys that failed to decode).
func (c *Config) problems(skip map[string]bool, requireVault bool) []Problem {
	var out []Problem
	for i := range keys {
		k := &keys[i]
		if skip[k.name] {
			continue
		}
		out = append(out, k.validate(c)...)
	}
	if requireVault && c.Vault == "" && len(c.Projects) == 0 && !skip["vault"] && !skip["projects"] {
		k := lookupKey("vault")
		out = append(out, Problem{Key: k.name, Message: "not set, want the path of the vault folder (" + k.sources() + ")"})
	}
	return out
}

// validate runs the checks the key's type and table entry imply.
func (k *key) validate(c *Config) []Problem {
	var out []Problem
	switch p := k.field(c).(type) {
	case *string:
		if k.allowed != nil && !slices.Contains(k.allowed, *p) {
			out = append(out, k.notOneOf(*p))
		}
	case *[]string:
		if k.allowed != nil {
			for _, v := range *p {
				if !slices.Contains(k.allowed, v) {
					out = append(out, k.notOneOf(v))
				}
			}
		}
	case *int:
		if *p < k.min {
			out = append(out, k.problem("%d is too small, want at least %d", *p, k.min)...)
		}
	case *time.Duration:
		if *p <= 0 {
			out = append(out, k.problem("%q is not positive, want a duration such as 30s", p.String())...)
		}
	}
	if k.check != nil {
		out = append(out, k.check(c)...)
	}
	return out
}

func (k *key) notOneOf(v string) Problem {
	return Problem{Key: k.name, Message: fmt.Sprintf("%q is not one of %s", v, strings.Join(k.allowed, ", "))}
}

func problemf(key, format string, args ...any) Problem {
	return Problem{Key: key, Message: fmt.Sprintf(format, args...)}
}

// checkVault: a vault that is set must be an existing folder.
func checkVault(c *Config) []Problem {
	if c.Vault == "" {
		return nil
	}
	if p, ok := CheckDir("vault", c.Vault, "the vault folder"); !ok {
		return []Problem{p}
	}
	return nil
}

// CheckDir checks that dir exists and is a directory; the problem it
// returns names key and says what the folder is for (want). init uses it for
// the vault it is given.
func CheckDir(key, dir, want string) (Problem, bool) {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return problemf(key, "%q does not exist, want %s", dir, want), false
	case err != nil:
		return problemf(key, "%q cannot be read (%v), want %s", dir, errors.Unwrap(err), want), false
	case !st.IsDir():
		return problemf(key, "%q is not a directory, want %s", dir, want), false
	}
	return Problem{}, true
}

// checkStateDir: the embedded store needs a state folder; it is created on
// first use, but an existing file in its place is an error now.
func checkStateDir(c *Config) []Problem {
	if c.Store != StoreEmbedded {
		return nil
	}
	if c.StateDir == "" {
		return []Problem{problemf("state_dir", `"" is empty, want the folder where the embedded store keeps its state`)}
	}
	if st, err := os.Stat(c.StateDir); err == nil && !st.IsDir() {
		return []Problem{problemf("state_dir", "%q is not a directory, want the folder where the embedded store keeps its state", c.StateDir)}
	}
	return nil
}

// neo4jSchemes are the URI schemes the Neo4j Go driver accepts.
var neo4jSchemes = []string{"neo4j", "neo4j+s", "neo4j+ssc", "bolt", "bolt+s", "bolt+ssc"}

func checkNeo4jURI(c *Config) []Problem {
	const key = "neo4j.uri"
	raw := c.Neo4j.URI
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Opaque != "" {
		return []Problem{problemf(key, "%q is not a URI, want scheme://host:port such as bolt://127.0.0.1:7687", raw)}
	}
	if u.User != nil {
		// The value holds credentials: never echo it.
		return []Problem{problemf(key, "%s carries credentials, want them in neo4j.user and neo4j.password", Redacted)}
	}
	if !slices.Contains(neo4jSchemes, u.Scheme) {
		return []Problem{problemf(key, "%q has scheme %q, want one of %s", raw, u.Scheme, strings.Join(neo4jSchemes, ", "))}
	}
	if u.Host == "" {
		return []Problem{problemf(key, "%q has no host, want scheme://host:port such as bolt://127.0.0.1:7687", raw)}
	}
	return nil
}

// checkNeo4jTLSCAFile wants a readable file holding a PEM certificate
// when neo4j.tls_ca_file is set.
func checkNeo4jTLSCAFile(c *Config) []Problem {
	const key = "neo4j.tls_ca_file"
	f := c.Neo4j.TLSCAFile
	if f == "" {
		return nil
	}
	b, err := os.ReadFile(f)
	if err != nil {
		return []Problem{problemf(key, "cannot read %s: %v", f, err)}
	}
	if block, _ := pem.Decode(b); block == nil || block.Type != "CERTIFICATE" {
		return []Problem{problemf(key, "%s holds no PEM certificate (want -----BEGIN CERTIFICATE-----)", f)}
	}
	return nil
}

func checkListenAddr(c *Config) []Problem {
	addr := c.HTTP.Addr
	if addr == "" {
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		var n int
		n, err = strconv.Atoi(port)
		if err == nil && (n < 0 || n > 65535) {
			err = errors.New("port out of range")
		}
	}
	if err != nil {
		return []Problem{problemf("http.addr", "%q is not a listen address, want host:port such as 127.0.0.1:8080 or :8080", addr)}
	}
	return nil
}

func checkEmbeddingURL(c *Config) []Problem {
	raw := c.Embedding.URL
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Scheme == "" || u.Opaque != "":
		return []Problem{problemf("embedding.url", "%q is not a URL, want e.g. http://127.0.0.1:11434", raw)}
	case u.Scheme != "http" && u.Scheme != "https":
		return []Problem{problemf("embedding.url", "%q has scheme %q, want http or https", raw, u.Scheme)}
	case u.Host == "":
		return []Problem{problemf("embedding.url", "%q has no host, want e.g. http://127.0.0.1:11434", raw)}
	}
	return nil
}

// checkTokensNeeded checks the tokens, and that there is one when
// http.addr is not a loopback address: a server other machines can reach
// must not answer everyone. serve would refuse it too, but only after
// opening the store and syncing the vault; a configuration error stops it
// at once with exit code 2.
func checkTokensNeeded(c *Config) []Problem {
	out := checkTokens(c)
	if c.HTTP.Addr != "" && len(c.HTTP.Tokens) == 0 && c.HTTP.OAuth.Issuer == "" && checkListenAddr(c) == nil && !isLoopbackAddr(c.HTTP.Addr) {
		out = append(out, problemf("http.tokens", "not set, but http.addr %q is reachable from other machines; set a token (env VAULTGRAPH_HTTP_TOKENS, or http.tokens in the config file) or listen on 127.0.0.1", c.HTTP.Addr))
	}
	return out
}

// isLoopbackAddr reports whether the host of a host:port address is a
// loopback address or "localhost"; an empty host (":8080") listens on
// every interface and is not.
func isLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

func checkAllowedOrigins(c *Config) []Problem {
	var out []Problem
	for _, o := range c.HTTP.AllowedOrigins {
		if o == "*" {
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			out = append(out, problemf("http.allowed_origins", "%q is not an origin, want scheme://host[:port] such as https://app.example.com, or *", o))
		}
	}
	return out
}

func checkAllowedHosts(c *Config) []Problem {
	var out []Problem
	for _, h := range c.HTTP.AllowedHosts {
		if h == "" || strings.ContainsAny(h, "/ @") {
			out = append(out, problemf("http.allowed_hosts", "%q is not a host name, want e.g. vault.example.com or vault.example.com:443", h))
		}
	}
	return out
}

// checkTLS: a certificate and a key, both or neither, both readable files.
// checkOAuth checks the OAuth settings that can be checked without
// asking the authorization server (serve discovers it at the first token).
func checkOAuth(c *Config) []Problem {
	o := c.HTTP.OAuth
	if o.Issuer == "" {
		return nil
	}
	var out []Problem
	if u, err := url.Parse(o.Issuer); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		out = append(out, problemf("http.oauth.issuer", "%q is not an http(s) URL; set the authorization server's issuer, e.g. https://login.example.com/realms/team", o.Issuer))
	}
	if strings.TrimSpace(o.Audience) == "" {
		out = append(out, problemf("http.oauth.audience", "not set, but http.oauth.issuer is; set the audience your authorization server puts in vaultgraph's access tokens"))
	}
	if o.ReadScope == "" || o.WriteScope == "" || o.ReadScope == o.WriteScope {
		out = append(out, problemf("http.oauth.read_scope", "the read and write scopes must be two different, non-empty names"))
	}
	if c.HTTP.Addr != "" && c.HTTP.TLSCert == "" && !c.HTTP.BehindProxy && checkListenAddr(c) == nil && !isLoopbackAddr(c.HTTP.Addr) {
		out = append(out, problemf("http.behind_proxy", "OAuth on %q over plain HTTP would send access tokens in clear; serve HTTPS (http.tls_cert, http.tls_key) or declare the TLS-terminating proxy in front (http.behind_proxy: true)", c.HTTP.Addr))
	}
	return out
}

func checkTLS(c *Config) []Problem {
	cert, key := c.HTTP.TLSCert, c.HTTP.TLSKey
	switch {
	case cert == "" && key == "":
		return nil
	case cert == "":
		return []Problem{problemf("http.tls_cert", "not set, but http.tls_key is; set both to serve HTTPS, or neither")}
	case key == "":
		return []Problem{problemf("http.tls_key", "not set, but http.tls_cert is; set both to serve HTTPS, or neither")}
	}
	var out []Problem
	for _, f := range []struct{ key, path string }{{"http.tls_cert", cert}, {"http.tls_key", key}} {
		if st, err := os.Stat(f.path); err != nil || st.IsDir() {
			out = append(out, problemf(f.key, "%q is not a readable file, want a PEM file", f.path))
		}
	}
	return out
}

func checkMetricsAddr(c *Config) []Problem {
	addr := c.Metrics.Addr
	if addr == "" {
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return []Problem{problemf("metrics.addr", "%q is not a listen address, want host:port such as 127.0.0.1:9464", addr)}
	}
	if addr == c.HTTP.Addr && port != "0" { // port 0: each gets a free port of its own
		return []Problem{problemf("metrics.addr", "%q is http.addr too, want an address of its own", addr)}
	}
	if !MetricsLoopback(addr) && c.Metrics.Token == "" {
		return []Problem{problemf("metrics.addr", "%q is not a loopback address and metrics.token is not set: anyone who reaches it could read the metrics; set metrics.token (VAULTGRAPH_METRICS_TOKEN), or listen on 127.0.0.1", addr)}
	}
	return nil
}

// MetricsAddr is the address /metrics listens on for metrics.addr: a port
// alone (":9464") on loopback.
func MetricsAddr(addr string) string {
	if host, port, err := net.SplitHostPort(addr); err == nil && host == "" {
		return net.JoinHostPort("127.0.0.1", port)
	}
	return addr
}

// MetricsLoopback reports whether metrics.addr listens on loopback only
// (a port alone, localhost, 127.0.0.0/8, ::1).
func MetricsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(MetricsAddr(addr))
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkTokens: tokens must be non-empty, free of whitespace and commas (so
// they survive the comma-separated environment form) and distinct. Values
// are never shown.
func checkTokens(c *Config) []Problem {
	var out []Problem
	seen := map[Secret]int{}
	for i, t := range c.HTTP.Tokens {
		at := fmt.Sprintf("http.tokens[%d]", i)
		v := t.Value.Reveal()
		switch {
		case v == "":
			out = append(out, problemf(at, `"" is empty, want a token of visible characters without commas`))
		case strings.ContainsFunc(v, func(r rune) bool { return r == ',' || r <= ' ' || r == 0x7f }):
			out = append(out, problemf(at, "%s holds a comma, space or control character, want a token of visible characters without commas", Redacted))
		}
		if j, dup := seen[t.Value]; dup && v != "" {
			out = append(out, problemf(at, "%s repeats http.tokens[%d], want each token once", Redacted, j))
		}
		seen[t.Value] = i
	}
	return out
}

func checkToolsets(c *Config) []Problem {
	if len(c.Toolsets) == 0 {
		return []Problem{problemf("toolsets", "is empty, want at least one of %s", strings.Join(toolsetNames, ", "))}
	}
	return nil
}

// toolName is what MCP allows in a tool name.
var toolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

func checkToolRenames(c *Config) []Problem {
	var out []Problem
	target := map[string]string{}
	for _, from := range slices.Sorted(maps.Keys(c.ToolRenames)) {
		to := c.ToolRenames[from]
		for _, name := range []string{from, to} {
			if !toolName.MatchString(name) {
				out = append(out, problemf("tool_renames", "%q is not a tool name, want 1 to 128 letters, digits, _, - or .", name))
			}
		}
		if other, dup := target[to]; dup {
			out = append(out, problemf("tool_renames", "%q is the new name of both %s and %s, want one tool per name", to, other, from))
		}
		target[to] = from
	}
	return out
}

func checkIgnore(c *Config) []Problem {
	var out []Problem
	for _, pattern := range c.Ignore {
		if pattern == "" {
			out = append(out, problemf("ignore", `"" is empty, want a glob pattern such as drafts/*`))
			continue
		}
		if _, err := path.Match(pattern, ""); err != nil {
			out = append(out, problemf("ignore", "%q is not a valid glob pattern, want path.Match syntax such as drafts/* or *.tmp.md", pattern))
		}
	}
	return out
}
