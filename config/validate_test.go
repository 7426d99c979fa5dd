package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInvalidValuesAreReportedWithKeyValueAndWhatIsAllowed(t *testing.T) {
	const schemes = "neo4j, neo4j+s, neo4j+ssc, bolt, bolt+s, bolt+ssc"
	cases := []struct {
		name string
		file string            // ./vaultgraph.yaml
		env  map[string]string // variables
		args []string
		opts LoadOptions
		want []string
	}{
		{name: "store by flag", args: []string{"--store", "neo5j"}, want: []string{`store: "neo5j" is not one of embedded, neo4j`}},
		{name: "store by env", env: map[string]string{"VAULTGRAPH_STORE": "neo5j"}, want: []string{`store: "neo5j" is not one of embedded, neo4j`}},
		{name: "uri scheme", file: "neo4j: {uri: 'htp://x'}", want: []string{`neo4j.uri: "htp://x" has scheme "htp", want one of ` + schemes}},
		{name: "uri without scheme", env: map[string]string{"VAULTGRAPH_NEO4J_URI": "localhost:7687"}, want: []string{`neo4j.uri: "localhost:7687" is not a URI, want scheme://host:port such as bolt://127.0.0.1:7687`}},
		{name: "uri without host", env: map[string]string{"VAULTGRAPH_NEO4J_URI": "bolt://"}, want: []string{`neo4j.uri: "bolt://" has no host, want scheme://host:port such as bolt://127.0.0.1:7687`}},
		{name: "uri with credentials is not echoed", env: map[string]string{"VAULTGRAPH_NEO4J_URI": "bolt://neo4j:hunter2@db:7687"}, want: []string{`neo4j.uri: [redacted] carries credentials, want them in neo4j.user and neo4j.password`}},
		{name: "log level", args: []string{"--log-level", "loud"}, want: []string{`log.level: "loud" is not one of debug, info, warn, error`}},
		{name: "log format", file: "log:\n  format: xml", want: []string{`log.format: "xml" is not one of text, json`}},
		{name: "unknown toolset", env: map[string]string{"VAULTGRAPH_TOOLSETS": "graph,grap"}, want: []string{`toolsets: "grap" is not one of graph, kb, edit, entities, memory, all`}},
		{name: "no toolsets", file: "toolsets: []", want: []string{`toolsets: is empty, want at least one of graph, kb, edit, entities, memory, all`}},
		{name: "toolsets not a list", file: "toolsets: {graph: true}", want: []string{`toolsets: a mapping is not a list, want a YAML list or a comma-separated string`}},
		{name: "bool from file", file: "read_only: maybe", want: []string{`read_only: "maybe" is not a boolean, want true or false`}},
		{name: "bool from env", env: map[string]string{"VAULTGRAPH_WATCH": "sometimes"}, want: []string{`watch: "sometimes" is not a boolean, want true or false`}},
		{name: "int too small", file: "neo4j: {max_connections: 0}", want: []string{`neo4j.max_connections: 0 is too small, want at least 1`}},
		{name: "int not a number", env: map[string]string{"VAULTGRAPH_NEO4J_MAX_CONNECTIONS": "many"}, want: []string{`neo4j.max_connections: "many" is not an integer, want a whole number of at least 1`}},
		{name: "duration without unit", file: "neo4j: {timeout: 30}", want: []string{`neo4j.timeout: 30 is not a duration, want a number with a unit such as 30s, 2m or 1h30m`}},
		{name: "duration not positive", env: map[string]string{"VAULTGRAPH_NEO4J_TIMEOUT": "-1s"}, want: []string{`neo4j.timeout: "-1s" is not positive, want a duration such as 30s`}},
		{name: "string given a list", file: "neo4j: {user: [a, b]}", want: []string{`neo4j.user: a list is not a string`}},
		{name: "listen address", args: []string{"--http", "8080"}, want: []string{`http.addr: "8080" is not a listen address, want host:port such as 127.0.0.1:8080 or :8080`}},
		{name: "listen port out of range", env: map[string]string{"VAULTGRAPH_HTTP_ADDR": ":70000"}, want: []string{`http.addr: ":70000" is not a listen address, want host:port such as 127.0.0.1:8080 or :8080`}},
		// Issue 23: refused before any sync, not after it.
		{name: "no token off loopback", args: []string{"--http", "0.0.0.0:8080"}, want: []string{`http.tokens: not set, but http.addr "0.0.0.0:8080" is reachable from other machines; set a token (env VAULTGRAPH_HTTP_TOKENS, or http.tokens in the config file) or listen on 127.0.0.1`}},
		{name: "TLS key without a certificate", env: map[string]string{"VAULTGRAPH_HTTP_TLS_KEY": "/etc/key.pem"}, want: []string{`http.tls_cert: not set, but http.tls_key is; set both to serve HTTPS, or neither`}},
		{name: "TLS files missing", env: map[string]string{"VAULTGRAPH_HTTP_TLS_CERT": "/nonexistent/c.pem", "VAULTGRAPH_HTTP_TLS_KEY": "/nonexistent/k.pem"}, want: []string{`http.tls_cert: "/nonexistent/c.pem" is not a readable file, want a PEM file`, `http.tls_key: "/nonexistent/k.pem" is not a readable file, want a PEM file`}},
		{name: "allowed origin with a path", file: "http:\n  allowed_origins: [https://a.example.com/app]", want: []string{`http.allowed_origins: "https://a.example.com/app" is not an origin, want scheme://host[:port] such as https://app.example.com, or *`}},
		{name: "metrics on the MCP address", env: map[string]string{"VAULTGRAPH_HTTP_ADDR": "127.0.0.1:9000", "VAULTGRAPH_METRICS_ADDR": "127.0.0.1:9000"}, want: []string{`metrics.addr: "127.0.0.1:9000" is http.addr too, want an address of its own`}},
		// Issue 43: /metrics off loopback needs a token.
		{name: "metrics off loopback without a token", env: map[string]string{"VAULTGRAPH_METRICS_ADDR": "0.0.0.0:9464"}, want: []string{`metrics.addr: "0.0.0.0:9464" is not a loopback address and metrics.token is not set: anyone who reaches it could read the metrics; set metrics.token (VAULTGRAPH_METRICS_TOKEN), or listen on 127.0.0.1`}},
		{name: "subscription limit", env: map[string]string{"VAULTGRAPH_RESOURCES_MAX_SUBSCRIPTIONS": "0"}, want: []string{`resources.max_subscriptions: 0 is too small, want at least 1`}},
		{name: "session limit", env: map[string]string{"VAULTGRAPH_HTTP_MAX_SESSIONS": "0"}, want: []string{`http.max_sessions: 0 is too small, want at least 1`}},
		{
			name: "token objects",
			file: "http:\n  tokens:\n    - {token: secret1, readonly: true}\n    - {read_only: true}\n    - {token: [a]}\n    - {token: secret4, read_only: perhaps}\n    - [nested]",
			want: []string{
				`http.tokens[0]: unknown field "readonly", want token and read_only`,
				`http.tokens[1]: has no token field, want {token: ..., read_only: true}`,
				`http.tokens[2]: token is a list, want a string`,
				`http.tokens[3]: read_only is "perhaps", want true or false`,
				`http.tokens[4]: a list is not a token, want a string or {token: ..., read_only: true}`,
			},
		},
		{
			name: "token values",
			file: "http:\n  tokens: ['', 'has space', secret3, secret3]",
			want: []string{
				`http.tokens[0]: "" is empty, want a token of visible characters without commas`,
				`http.tokens[1]: [redacted] holds a comma, space or control character, want a token of visible characters without commas`,
				`http.tokens[3]: [redacted] repeats http.tokens[2], want each token once`,
			},
		},
		{name: "tokens not a list", file: "http: {tokens: {a: b}}", want: []string{`http.tokens: a mapping is not a list, want a list of tokens or a comma-separated string`}},
		{
			name: "tool renames",
			file: "tool_renames: {search: 'memory search', get_node: node, get_hubs: node}",
			want: []string{
				`tool_renames: "node" is the new name of both get_hubs and get_node, want one tool per name`,
				`tool_renames: "memory search" is not a tool name, want 1 to 128 letters, digits, _, - or .`,
			},
		},
		{name: "tool renames env", env: map[string]string{"VAULTGRAPH_TOOL_RENAMES": "search"}, want: []string{`tool_renames: "search" is not old=new, want pairs such as search=memory_search separated by commas`}},
		{name: "tool renames not a mapping", file: "tool_renames: [a, b]", want: []string{`tool_renames: a list is not a mapping, want old: new pairs such as {search: memory_search}`}},
		{name: "embedding provider", env: map[string]string{"VAULTGRAPH_EMBEDDING_PROVIDER": "gpt"}, want: []string{`embedding.provider: "gpt" is not one of builtin, ollama, openai, none`}},
		{name: "embedding url", file: "embedding: {url: 'ftp://host/x'}", want: []string{`embedding.url: "ftp://host/x" has scheme "ftp", want http or https`}},
		{name: "ignore pattern", file: "ignore: ['drafts/*', '[', '']", want: []string{`ignore: "[" is not a valid glob pattern, want path.Match syntax such as drafts/* or *.tmp.md`, `ignore: "" is empty, want a glob pattern such as drafts/*`}},
		{name: "vault required", opts: LoadOptions{RequireVault: true}, want: []string{`vault: not set, want the path of the vault folder (flag --vault, env VAULTGRAPH_VAULT or "vault" in the config file)`}},
		{name: "vault missing", args: []string{"--vault", "/nonexistent/vault"}, want: []string{`vault: "/nonexistent/vault" does not exist, want the vault folder`}},
		{name: "unknown keys", file: "verbose: true\nneo4j:\n  url: bolt://x\n", want: []string{
			`neo4j.url: unknown key, want one of uri, user, password, database, max_connections, timeout, tls_ca_file, vector_cache`,
			`verbose: unknown key, want one of vault, projects, store, state_dir, neo4j, http, changes, metrics, resources, read_only, toolsets, tools, exclude_tools, tool_renames, embedding, watch, sync, ignore, naming, documents, entities, log`,
		}},
		{name: "section not a mapping", file: "neo4j: oops", want: []string{`neo4j: "oops" is not a mapping, want keys uri, user, password, database, max_connections, timeout, tls_ca_file, vector_cache`}},
		{name: "missing --config file", args: []string{"--config", "/nonexistent/vg.yaml"}, want: []string{`config file: "/nonexistent/vg.yaml" cannot be read: no such file or directory`}},
		{
			name: "every problem at once, in key order",
			file: "log: {level: loud}\nstore: neo5j\n",
			env:  map[string]string{"VAULTGRAPH_TOOLSETS": "grap", "VAULTGRAPH_NEO4J_URI": "htp://x"},
			want: []string{
				`store: "neo5j" is not one of embedded, neo4j`,
				`neo4j.uri: "htp://x" has scheme "htp", want one of ` + schemes,
				`toolsets: "grap" is not one of graph, kb, edit, entities, memory, all`,
				`log.level: "loud" is not one of debug, info, warn, error`,
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wd := isolate(t)
			if tc.file != "" {
				writeFile(t, filepath.Join(wd, "vaultgraph.yaml"), tc.file)
			}
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			c, err := loadWith(t, tc.opts, tc.args...)
			assert.Nil(t, c)
			assert.Equal(t, tc.want, problemLines(t, err))
			for _, secret := range []string{"hunter2", "secret1", "secret3", "secret4", "has space"} {
				assert.NotContains(t, err.Error(), secret)
			}
		})
	}
}

func TestYAMLSyntaxErrorNamesTheFile(t *testing.T) {
	wd := isolate(t)
	file := writeFile(t, filepath.Join(wd, "vaultgraph.yaml"), "store: [unclosed\n")
	_, err := load(t)
	lines := problemLines(t, err)
	require.Len(t, lines, 1)
	assert.True(t, strings.HasPrefix(lines[0], "config file: "+file+": yaml: "), lines[0])
}

func TestFileThatIsNotAMapping(t *testing.T) {
	wd := isolate(t)
	file := writeFile(t, filepath.Join(wd, "vaultgraph.yaml"), "- a\n- b\n")
	_, err := load(t)
	assert.Equal(t, []string{`config file: ` + file + `: a list is not a mapping of keys, want e.g. "vault: ~/notes"`}, problemLines(t, err))
}

func TestVaultAndStateDirMustBeDirectories(t *testing.T) {
	wd := isolate(t)
	file := writeFile(t, filepath.Join(wd, "note.md"), "# not a folder")
	_, err := load(t, "--vault", file, "--state-dir", file)
	assert.Equal(t, []string{
		`vault: "` + file + `" is not a directory, want the vault folder`,
		`state_dir: "` + file + `" is not a directory, want the folder where the embedded store keeps its state`,
	}, problemLines(t, err))

	// The state dir matters only to the embedded store.
	_, err = load(t, "--state-dir", file, "--store", "neo4j")
	assert.NoError(t, err)
}

func TestProblemsNameWhereTheValueCameFrom(t *testing.T) {
	wd := isolate(t)
	file := writeFile(t, filepath.Join(wd, "vaultgraph.yaml"), "log: {format: xml}\n")
	t.Setenv("VAULTGRAPH_STORE", "neo5j")
	_, err := load(t, "--log-level", "loud")
	var ce *Error
	require.ErrorAs(t, err, &ce)
	require.Len(t, ce.Problems, 3)
	assert.Equal(t, `store: "neo5j" is not one of embedded, neo4j (from env VAULTGRAPH_STORE)`, ce.Problems[0].Line())
	assert.Equal(t, `log.level: "loud" is not one of debug, info, warn, error (from flag --log-level)`, ce.Problems[1].Line())
	assert.Equal(t, `log.format: "xml" is not one of text, json (from `+file+`)`, ce.Problems[2].Line())
	assert.True(t, IsConfigError(err))
	assert.Contains(t, err.Error(), "config: 3 problems: ")
}

func TestValidateOnAConfigBuiltInCode(t *testing.T) {
	isolate(t)
	c := Default()
	require.NoError(t, c.Validate())

	c.Store = "neo5j"
	c.Neo4j.MaxConnections = 0
	c.Toolsets = append(c.Toolsets, "grap")
	assert.Equal(t, []string{
		`store: "neo5j" is not one of embedded, neo4j`,
		`neo4j.max_connections: 0 is too small, want at least 1`,
		`toolsets: "grap" is not one of graph, kb, edit, entities, memory, all`,
	}, problemLines(t, c.Validate()))
}

func TestCheckDir(t *testing.T) {
	dir := t.TempDir()
	_, ok := CheckDir("vault", dir, "the vault folder")
	assert.True(t, ok)
	file := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	p, ok := CheckDir("vault", file, "the vault folder")
	assert.False(t, ok)
	assert.Equal(t, `vault: "`+file+`" is not a directory, want the vault folder`, p.String())
}

// TestMetricsAddr: a port alone listens on loopback; off loopback is
// accepted with a token (issue 43).
func TestMetricsAddr(t *testing.T) {
	for addr, want := range map[string]string{":9464": "127.0.0.1:9464", "0.0.0.0:9464": "0.0.0.0:9464", "[::1]:9": "[::1]:9"} {
		if got := MetricsAddr(addr); got != want {
			t.Errorf("MetricsAddr(%q) = %q, want %q", addr, got, want)
		}
	}
	for addr, want := range map[string]bool{":9464": true, "localhost:9464": true, "127.0.0.2:1": true, "[::1]:9": true, "0.0.0.0:9464": false, "192.168.1.2:9464": false, "[::]:9": false} {
		if got := MetricsLoopback(addr); got != want {
			t.Errorf("MetricsLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
	c := &Config{Metrics: MetricsConfig{Addr: "0.0.0.0:9464", Token: "s3cret"}}
	if p := checkMetricsAddr(c); len(p) != 0 {
		t.Errorf("off loopback with a token: %v, want accepted", p)
	}
}
