package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/vaultgraph/vaultgraph/internal/toolset"
)

func TestStatusRedactsSecretsFromTheEnvironment(t *testing.T) {
	for _, format := range []string{"table", "yaml"} {
		t.Run(format, func(t *testing.T) {
			isolate(t)
			t.Setenv("VAULTGRAPH_NEO4J_PASSWORD", "hunter2")
			t.Setenv("VAULTGRAPH_HTTP_TOKENS", "tok-one,ro:tok-two")
			t.Setenv("VAULTGRAPH_EMBEDDING_API_KEY", "sk-secret")
			r := runCLI(t, "status", "--format", format, "--log-level", "debug")
			require.Equal(t, exitOK, r.code, r.stderr)
			for _, secret := range []string{"hunter2", "tok-one", "tok-two", "sk-secret"} {
				assert.NotContains(t, r.stdout, secret)
				assert.NotContains(t, r.stderr, secret)
			}
			assert.Contains(t, r.stdout, "[redacted]")
		})
	}
}

func TestStatusTable(t *testing.T) {
	isolate(t)
	t.Setenv("VAULTGRAPH_NEO4J_PASSWORD", "hunter2")
	r := runCLI(t, "status", "--store", "neo4j", "--config-only")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "config file: none (looked for ")
	assert.Regexp(t, `(?m)^KEY\s+VALUE\s+SOURCE$`, r.stdout)
	assert.Regexp(t, `(?m)^store\s+neo4j\s+flag --store$`, r.stdout)
	assert.Regexp(t, `(?m)^neo4j\.password\s+\[redacted\]\s+env VAULTGRAPH_NEO4J_PASSWORD$`, r.stdout)
	assert.Regexp(t, `(?m)^neo4j\.uri\s+bolt://127\.0\.0\.1:7687\s+default$`, r.stdout)
	assert.Regexp(t, `(?m)^toolsets\s+`+strings.Join(toolset.Defaults(), ",")+`\s+default$`, r.stdout)
	assert.Regexp(t, `(?m)^embedding\.api_key\s+""\s+default$`, r.stdout)
}

func TestStatusYAMLIsShapedLikeTheFile(t *testing.T) {
	isolate(t)
	r := runCLI(t, "status", "--format", "yaml", "--toolsets", "all")
	require.Equal(t, exitOK, r.code, r.stderr)
	var doc struct {
		Store    string   `yaml:"store"`
		Toolsets []string `yaml:"toolsets"`
		Neo4j    struct {
			URI            string `yaml:"uri"`
			MaxConnections int    `yaml:"max_connections"`
		} `yaml:"neo4j"`
		HTTP struct {
			Tokens []any `yaml:"tokens"`
		} `yaml:"http"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(r.stdout), &doc), r.stdout)
	assert.Equal(t, "embedded", doc.Store)
	assert.Equal(t, toolset.IDs(), doc.Toolsets)
	assert.Equal(t, "bolt://127.0.0.1:7687", doc.Neo4j.URI)
	assert.Equal(t, 50, doc.Neo4j.MaxConnections)
	assert.Contains(t, r.stdout, "toolsets: [graph, kb, edit, entities, memory] # from flag --toolsets\n")
}

func TestStatusLooksAtTheEmbeddedStore(t *testing.T) {
	dir := isolate(t)
	vault := t.TempDir()
	r := runCLI(t, "status", "--vault", vault, "--state-dir", dir)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Regexp(t, `(?m)^store: embedded in `+regexp.QuoteMeta(dir)+`/`, r.stdout)
	assert.Contains(t, r.stdout, "empty: no state yet")

	r = runCLI(t, "status", "--vault", vault, "--state-dir", dir, "--config-only")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.NotContains(t, r.stdout, "store: embedded")
}

// Issue 23: an unreachable store is reported, and status exits 1 (a
// script or a health check must not read "fine").
func TestStatusReportsAnUnreachableNeo4jAndExitsOne(t *testing.T) {
	isolate(t)
	t.Setenv("VAULTGRAPH_NEO4J_URI", "bolt://127.0.0.1:1")
	r := runCLI(t, "status", "--store", "neo4j")
	require.Equal(t, exitError, r.code, r.stderr)
	assert.Regexp(t, `(?m)^store: neo4j at bolt://127\.0\.0\.1:1\n  unreachable: .+`, r.stdout)
	assert.Contains(t, r.stderr, "the store cannot be reached")
}

// Issue 44: an HTTP port given as the Bolt URI (Go's server waits for a
// request line the Bolt handshake never ends) is "not a Bolt server" for
// status, doctor and migrate, within the handshake's 3 s rather than
// after the store's timeout (10 minutes here).
func TestStoreCommandsNameANonBoltPort(t *testing.T) {
	isolate(t)
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	t.Setenv("VAULTGRAPH_NEO4J_URI", "bolt://"+srv.Listener.Addr().String())
	t.Setenv("VAULTGRAPH_NEO4J_TIMEOUT", "10m")
	r := runCLI(t, "status", "--store", "neo4j")
	require.Equal(t, exitError, r.code, r.stderr)
	assert.Regexp(t, `(?m)^  not a Bolt server: .+within 3s`, r.stdout)
	vault := t.TempDir()
	r = runCLI(t, "doctor", "--store", "neo4j", "--vault", vault)
	assert.NotEqual(t, exitOK, r.code)
	assert.Contains(t, r.stdout+r.stderr, "not a Bolt server")
	r = runCLI(t, "migrate", "--store", "neo4j")
	assert.NotEqual(t, exitOK, r.code)
	assert.Contains(t, r.stderr, "migrate: not a Bolt server")
}

func TestStatusSaysWhereEmbeddingStands(t *testing.T) {
	dir := isolate(t)
	vault := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(vault, "a.md"), []byte("# A\n\nsplitting long documents into chunks\n"), 0o600))
	r := runCLI(t, "status", "--vault", vault, "--state-dir", dir)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "embedding: no pass recorded yet")

	r = runCLI(t, "sync", "--embed", "--vault", vault, "--state-dir", dir)
	require.Equal(t, exitOK, r.code, r.stderr)
	r = runCLI(t, "status", "--vault", vault, "--state-dir", dir)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Regexp(t, `embedding: every note has a vector of all-minilm-l6-v2-int8:[0-9a-f]{12} \(last pass embedded 1,`, r.stdout)
}

// Issue 23: doctor checks the vault and the store, says what to fix, and
// --fix repairs notes whose file and graph disagree.
func TestDoctorFindsAndFixes(t *testing.T) {
	dir := isolate(t)
	vault := t.TempDir()
	write := func(rel, content string) {
		require.NoError(t, os.WriteFile(filepath.Join(vault, rel), []byte(content), 0o600))
	}
	write("a.md", "[[b]]")
	write("b.md", "b")
	t.Setenv("VAULTGRAPH_EMBEDDING_PROVIDER", "none")
	r := runCLI(t, "sync", "--vault", vault, "--state-dir", dir)
	require.Equal(t, exitOK, r.code, r.stderr)
	r = runCLI(t, "doctor", "--vault", vault, "--state-dir", dir)
	require.Equal(t, exitOK, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "ok       graph: every note of the vault is in the graph")

	write("c.md", "[[missing]]") // changed while nothing ran
	r = runCLI(t, "doctor", "--vault", vault, "--state-dir", dir)
	require.Equal(t, exitError, r.code)
	assert.Contains(t, r.stdout, "WARNING  vault: 1 problem in 1 of 3 notes, e.g. c.md: Broken link: [[missing]]")
	assert.Contains(t, r.stdout, "PROBLEM  graph: 1 note in disagreement with the vault's files, e.g. c.md is not in the graph; next: 'vaultgraph doctor --fix'")
	assert.Contains(t, r.stdout, "1 problem, 1 warning\n")
	r = runCLI(t, "doctor", "--vault", vault, "--state-dir", dir, "--fix")
	assert.Contains(t, r.stdout, "ok       graph: 1 note disagreed with the vault's files; repaired by a sync")

	// Lint alone is a WARNING: exit 0, unless --strict.
	r = runCLI(t, "doctor", "--vault", vault, "--state-dir", dir)
	assert.Equal(t, exitOK, r.code, r.stdout)
	assert.Contains(t, r.stdout, "ok       graph: every note of the vault is in the graph")
	assert.Contains(t, r.stdout, "WARNING  vault: 1 problem in")
	assert.Contains(t, r.stdout, "0 problems, 1 warning\n")
	r = runCLI(t, "doctor", "--vault", vault, "--state-dir", dir, "--strict")
	assert.Equal(t, exitError, r.code, r.stdout)
}

// Every PROBLEM says what to do next: an unreachable Neo4j names the keys to
// check and where to see them.
func TestDoctorGivesANextStepForAnUnreachableStore(t *testing.T) {
	isolate(t)
	vault := newVault(t)
	t.Setenv("VAULTGRAPH_NEO4J_TIMEOUT", "2s")
	t.Setenv("VAULTGRAPH_NEO4J_URI", "bolt://127.0.0.1:1")
	r := runCLI(t, "doctor", "--vault", vault, "--store", "neo4j")
	require.Equal(t, exitError, r.code, r.stdout+r.stderr)
	assert.Regexp(t, `(?m)^PROBLEM  store: Neo4j at bolt://127\.0\.0\.1:1: unreachable: .*; next: start Neo4j, or fix neo4j\.uri, neo4j\.user and neo4j\.password`, r.stdout)
}
