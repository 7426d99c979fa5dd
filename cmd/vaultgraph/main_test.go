package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// result is what one in-process run of the CLI produced.
type result struct {
	code           int
	stdout, stderr string
}

// runCLI runs the command line in process with captured output.
func runCLI(t *testing.T, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := execute(t.Context(), args, streams{in: strings.NewReader(""), out: &out, err: &errOut})
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// isolate gives the test no VAULTGRAPH_* variables, HOME and XDG folders of
// its own, and an empty working directory, which it returns.
func isolate(t *testing.T) string {
	t.Helper()
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "VAULTGRAPH_") {
			t.Setenv(name, "")
			require.NoError(t, os.Unsetenv(name))
		}
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
	wd := t.TempDir()
	t.Chdir(wd)
	return wd
}

// newVault makes a vault folder with one note and returns its path.
func newVault(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "vault")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Home.md"), []byte("# Home\n"), 0o600))
	return dir
}

func TestConfigErrorsExitTwoWithEveryProblemOnStderr(t *testing.T) {
	cases := []struct {
		name  string
		env   map[string]string
		args  []string
		lines []string
	}{
		{
			name:  "bad --store",
			args:  []string{"status", "--store", "neo5j"},
			lines: []string{`  store: "neo5j" is not one of embedded, neo4j (from flag --store)`},
		},
		{
			name:  "bad environment value",
			env:   map[string]string{"VAULTGRAPH_LOG_LEVEL": "loud"},
			args:  []string{"serve", "--vault", "VAULT"},
			lines: []string{`  log.level: "loud" is not one of debug, info, warn, error (from env VAULTGRAPH_LOG_LEVEL)`},
		},
		{
			name: "several problems",
			env:  map[string]string{"VAULTGRAPH_NEO4J_URI": "htp://x"},
			args: []string{"sync", "--toolsets", "grap", "--store", "neo5j"},
			lines: []string{
				`  vault: not set, want the path of the vault folder (flag --vault, env VAULTGRAPH_VAULT or "vault" in the config file)`,
				`  store: "neo5j" is not one of embedded, neo4j (from flag --store)`,
				`  neo4j.uri: "htp://x" has scheme "htp", want one of neo4j, neo4j+s, neo4j+ssc, bolt, bolt+s, bolt+ssc (from env VAULTGRAPH_NEO4J_URI)`,
				`  toolsets: "grap" is not one of graph, kb, edit, entities, memory, all (from flag --toolsets)`,
			},
		},
		{
			name:  "serve needs a vault",
			args:  []string{"serve"},
			lines: []string{`  vault: not set, want the path of the vault folder (flag --vault, env VAULTGRAPH_VAULT or "vault" in the config file)`},
		},
		{
			name:  "bad --http",
			args:  []string{"serve", "--vault", "VAULT", "--http", "8080"},
			lines: []string{`  http.addr: "8080" is not a listen address, want host:port such as 127.0.0.1:8080 or :8080 (from flag --http)`},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			vault := newVault(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = strings.ReplaceAll(a, "VAULT", vault)
			}
			r := runCLI(t, args...)
			assert.Equal(t, exitUsage, r.code)
			assert.Empty(t, r.stdout)
			want := "vaultgraph: invalid configuration:\n" + strings.Join(tc.lines, "\n") + "\n"
			assert.Equal(t, want, r.stderr)
		})
	}
}

func TestUsageErrorsExitTwo(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"serv"}, `vaultgraph: unknown command "serv"; did you mean serve?` + "\nRun 'vaultgraph --help' for usage.\n"},
		{[]string{"status", "--no-such-flag"}, "vaultgraph: unknown flag: --no-such-flag\nRun 'vaultgraph status --help' for usage.\n"},
		{[]string{"status", "extra"}, "vaultgraph: unknown command \"extra\" for \"vaultgraph status\"\nRun 'vaultgraph status --help' for usage.\n"},
		{[]string{"status", "--format", "xml"}, "vaultgraph: --format \"xml\" is not one of table, yaml\nRun 'vaultgraph status --help' for usage.\n"},
		{[]string{"call"}, "vaultgraph: accepts between 1 and 2 arg(s), received 0\nRun 'vaultgraph call --help' for usage.\n"},
		{[]string{"call", "get_node", "{not json"}, "vaultgraph: arguments \"{not json\" are not a JSON object, want e.g. '{\"id\": \"note\"}'\nRun 'vaultgraph call --help' for usage.\n"},
		{[]string{"call", "get_node", "[1]"}, "vaultgraph: arguments \"[1]\" are not a JSON object, want e.g. '{\"id\": \"note\"}'\nRun 'vaultgraph call --help' for usage.\n"},
		{[]string{"shim"}, "vaultgraph: --url is required\nRun 'vaultgraph shim --help' for usage.\n"},
		{[]string{"shim", "--url", "ftp://x"}, "vaultgraph: --url \"ftp://x\" is not an http or https URL, want e.g. http://127.0.0.1:8080/mcp\nRun 'vaultgraph shim --help' for usage.\n"},
		{[]string{"shim", "--url", "http://x/mcp", "--token-env", "VG_TEST_UNSET_TOKEN"}, "vaultgraph: --token-env VG_TEST_UNSET_TOKEN: the variable VG_TEST_UNSET_TOKEN is not set\nRun 'vaultgraph shim --help' for usage.\n"},
		{[]string{"init", "a", "b"}, "vaultgraph: accepts at most 1 arg(s), received 2\nRun 'vaultgraph init --help' for usage.\n"},
		{[]string{"--toolsets"}, "vaultgraph: flag needs an argument: --toolsets\nRun 'vaultgraph --help' for usage.\n"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			isolate(t)
			r := runCLI(t, tc.args...)
			assert.Equal(t, exitUsage, r.code)
			assert.Equal(t, tc.want, r.stderr)
			assert.Empty(t, r.stdout)
		})
	}
}

func TestCommandsLoadConfigurationFirst(t *testing.T) {
	cases := map[string][]string{
		"serve": {"serve", "--vault", "VAULT"},
		"sync":  {"sync", "--vault", "VAULT", "--watch"},
		"shim":  {"shim", "--url", "http://127.0.0.1:8080/mcp"},
		"call":  {"call", "get_node", `{"id": "Home"}`, "--vault", "VAULT"},
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			isolate(t)
			vault := newVault(t)
			for i := range args {
				args[i] = strings.ReplaceAll(args[i], "VAULT", vault)
			}
			// A bad configuration is exit 2 before anything runs.
			r := runCLI(t, append(args, "--log-format", "xml")...)
			assert.Equal(t, exitUsage, r.code)
			assert.Contains(t, r.stderr, `log.format: "xml" is not one of text, json`)
			assert.Empty(t, r.stdout)
		})
	}
}

func TestCallRunsOneToolAndPrintsItsResult(t *testing.T) {
	isolate(t)
	vault := newVault(t)
	require.NoError(t, os.WriteFile(filepath.Join(vault, "Home.md"), []byte("# Home\n\nSee [[Other]] #start\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(vault, "Other.md"), []byte("other note\n"), 0o600))

	r := runCLI(t, "call", "get_node", `{"id": "HOME.md"}`, "--vault", vault)
	require.Equal(t, exitOK, r.code, r.stderr)
	var node struct {
		ID    string
		Tags  []string
		Links []struct{ ID, Title string }
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &node), r.stdout)
	assert.Equal(t, "home.md", node.ID)
	assert.Equal(t, []string{"start"}, node.Tags)
	require.Len(t, node.Links, 1)
	assert.Equal(t, "Other", node.Links[0].Title)

	// A tool error is printed as the contract's error object, exit 1.
	r = runCLI(t, "call", "get_neighbors", `{"id": "home.md", "limit": 0}`, "--vault", vault)
	assert.Equal(t, exitError, r.code)
	assert.Contains(t, r.stdout, `"code":"INVALID_PARAMS"`)
	assert.Contains(t, r.stderr, "the tool answered with an error")

	// An unknown tool is an error, not a silent success.
	r = runCLI(t, "call", "no_such_tool", "--vault", vault)
	assert.Equal(t, exitError, r.code)
}

func TestSyncOnceExitsZero(t *testing.T) {
	isolate(t)
	vault := newVault(t)
	require.NoError(t, os.WriteFile(filepath.Join(vault, "a.md"), []byte("[[b]]"), 0o600))
	r := runCLI(t, "sync", "--vault", vault)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "sync done")
	assert.Empty(t, r.stdout)
}

func TestLoggingNeverWritesToStdout(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			isolate(t)
			t.Setenv("VAULTGRAPH_NEO4J_PASSWORD", "hunter2")
			t.Setenv("VAULTGRAPH_HTTP_TOKENS", "tok-secret")
			// stdin is empty: serve answers nothing and stops at end of input.
			r := runCLI(t, "serve", "--vault", newVault(t), "--log-level", "debug", "--log-format", format)
			assert.Equal(t, exitOK, r.code, r.stderr)
			assert.Empty(t, r.stdout)
			assert.Contains(t, r.stderr, "configuration loaded")
			assert.Contains(t, r.stderr, "[redacted]")
			assert.NotContains(t, r.stderr, "hunter2")
			assert.NotContains(t, r.stderr, "tok-secret")
		})
	}
}

func TestRootWithoutArgumentsPrintsHelp(t *testing.T) {
	isolate(t)
	r := runCLI(t)
	assert.Equal(t, exitOK, r.code)
	assert.Contains(t, r.stdout, "Available Commands:")
}

// Issue 23: a non-loopback address without tokens is a configuration
// error, reported before the store is opened or the vault synced.
func TestServeOffLoopbackWithoutTokensExitsTwoAtOnce(t *testing.T) {
	isolate(t)
	vault := newVault(t)
	r := runCLI(t, "serve", "--vault", vault, "--http", "0.0.0.0:0")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, `http.tokens: not set, but http.addr "0.0.0.0:0" is reachable from other machines`)
	assert.NotContains(t, r.stderr, "sync")
	assert.Empty(t, r.stdout)
	entries, err := os.ReadDir(os.Getenv("XDG_STATE_HOME"))
	assert.True(t, os.IsNotExist(err) || len(entries) == 0, "the store was opened: %v", entries)
}

// Issue 23: a shim without a token says so when it starts.
func TestShimWarnsWithoutAToken(t *testing.T) {
	isolate(t)
	r := runCLI(t, "shim", "--url", "http://127.0.0.1:1/mcp")
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stderr, "no bearer token")
	assert.Contains(t, r.stderr, "VAULTGRAPH_TOKEN")
	t.Setenv("VAULTGRAPH_TOKEN", "x")
	r = runCLI(t, "shim", "--url", "http://127.0.0.1:1/mcp")
	assert.NotContains(t, r.stderr, "no bearer token")
}

// Issue 26: single tools beside toolsets, and tools left out.
func TestToolsAndExcludeTools(t *testing.T) {
	isolate(t)
	vault := newVault(t)
	r := runCLI(t, "call", "list_knowledge_bases", "{}", "--vault", vault, "--toolsets", "graph", "--tools", "list_knowledge_bases")
	assert.Equal(t, 0, r.code, r.stderr)
	r = runCLI(t, "call", "get_hubs", "{}", "--vault", vault, "--exclude-tools", "get_hubs")
	assert.NotEqual(t, 0, r.code)
	assert.Contains(t, r.stderr, "no tool \"get_hubs\" in this configuration")
	r = runCLI(t, "call", "get_node", `{"id":"Home"}`, "--vault", vault, "--tools", "get_nod")
	assert.NotEqual(t, 0, r.code)
	assert.Contains(t, r.stderr, `unknown tool "get_nod"`)
}

// A tool of the memory toolset named alone is served with the toolset
// off: its tools are built when one of them is named (tools.Selection.Wants).
func TestAMemoryToolNamedAloneIsServedWithItsToolsetOff(t *testing.T) {
	isolate(t)
	vault := newVault(t)
	for _, name := range []string{"memory_count", "memory/memory_count"} {
		r := runCLI(t, "call", "memory_count", "{}", "--vault", vault, "--toolsets", "graph", "--tools", name)
		assert.Equal(t, 0, r.code, "--tools %s: %s", name, r.stderr)
		assert.Contains(t, r.stdout, `"success":true`, "--tools %s", name)
	}
}

func TestCheckListsTheVaultsProblems(t *testing.T) {
	dir := t.TempDir()
	writeNote := func(rel, content string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeNote("a.md", "[[b]] [[Missing]]")
	writeNote("b.md", "---\nowner: @me\n---\nbody")
	var out, errOut bytes.Buffer
	code := execute(t.Context(), []string{"check", "--vault", dir}, streams{in: strings.NewReader(""), out: &out, err: &errOut})
	if code != exitError {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitError, errOut.String())
	}
	if got := out.String(); !strings.Contains(got, "a.md: Broken link: [[Missing]]\n") || !strings.Contains(got, "b.md: b.md:2: frontmatter:") {
		t.Fatalf("stdout:\n%s", got)
	}
	// check writes nothing, and neither its log nor its summary says otherwise.
	if e := errOut.String(); strings.Contains(e, "written=") || !strings.Contains(e, "notes checked (nothing written)") {
		t.Fatalf("stderr:\n%s", e)
	}
	writeNote("a.md", "[[b]]")
	writeNote("b.md", "body")
	out.Reset()
	if code := execute(t.Context(), []string{"check", "--vault", dir, "--json"}, streams{in: strings.NewReader(""), out: &out, err: &errOut}); code != exitOK || strings.TrimSpace(out.String()) != "[]" {
		t.Fatalf("a clean vault: exit %d, stdout %q", code, out.String())
	}
}

func TestCallPrintsOneJSONDocument(t *testing.T) {
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(`[]`), mcp.NewTextContent(`{"_warnings":["Broken link: [[x]]"]}`)}}
	answer, warnings := splitWarnings(res)
	if answer != `[]` || len(warnings) != 1 || warnings[0] != "Broken link: [[x]]" {
		t.Fatalf("answer %q, warnings %q", answer, warnings)
	}
}
