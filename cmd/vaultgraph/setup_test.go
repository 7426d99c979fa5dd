package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vaultgraph/vaultgraph/config"
)

// fakeBinary stands for an installed vaultgraph: the test binary itself runs
// from go test's temporary build folder, which setup refuses.
func fakeBinary(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "bin", "vaultgraph")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, nil, 0o755))
	return p
}

// desktopConfig is Claude Desktop's file on Linux under isolate's folders.
func desktopConfig() string {
	return filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "Claude", "claude_desktop_config.json")
}

func writeJSONFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

// serverEntry reads the named server's entry from a client file.
func serverEntry(t *testing.T, path, name string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
	}
	require.NoError(t, json.Unmarshal(data, &doc), "%s", data)
	return doc.MCPServers[name]
}

func TestSetupClaudeDesktop(t *testing.T) {
	isolate(t)
	vault := newVault(t)
	bin := fakeBinary(t)
	file := desktopConfig()
	original := `{
  "mcpServers": {
    "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]}
  },
  "globalShortcut": "Ctrl+Space"
}
`
	writeJSONFile(t, file, original)

	t.Run("dry run prints the diff and writes nothing", func(t *testing.T) {
		r := runCLI(t, "setup", "claude-desktop", "--vault", vault, "--command", bin, "--dry-run")
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Contains(t, r.stdout, `would add the server "vaultgraph" in `+file+" (dry run: nothing written)\n")
		assert.Contains(t, r.stdout, "--- "+file+"\n+++ "+file+"\n")
		assert.Contains(t, r.stdout, `+    "vaultgraph": {`)
		assert.Contains(t, r.stdout, `+        "`+vault+`"`)
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		assert.Equal(t, original, string(data))
		backups, _ := filepath.Glob(file + ".vaultgraph-backup-*")
		assert.Empty(t, backups)
	})

	t.Run("writes the entry, keeps the rest, backs up", func(t *testing.T) {
		r := runCLI(t, "setup", "claude-desktop", "--vault", vault, "--command", bin)
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Contains(t, r.stdout, `added the server "vaultgraph" in `+file+"\n")
		assert.Contains(t, r.stdout, "next: quit and reopen Claude Desktop")
		entry := serverEntry(t, file, "vaultgraph")
		assert.Equal(t, bin, entry["command"])
		assert.Equal(t, []any{"serve", "--vault", vault}, entry["args"])
		assert.Equal(t, "npx", serverEntry(t, file, "filesystem")["command"])
		backups, _ := filepath.Glob(file + ".vaultgraph-backup-*")
		require.Len(t, backups, 1)
		assert.Contains(t, r.stdout, "the file as it was: "+backups[0])
		data, err := os.ReadFile(backups[0])
		require.NoError(t, err)
		assert.Equal(t, original, string(data))
	})

	t.Run("again: nothing to do", func(t *testing.T) {
		r := runCLI(t, "setup", "claude-desktop", "--vault", vault, "--command", bin)
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Contains(t, r.stdout, "nothing to do")
		backups, _ := filepath.Glob(file + ".vaultgraph-backup-*")
		assert.Len(t, backups, 1)
	})

	t.Run("another vault updates the entry", func(t *testing.T) {
		other := newVault(t)
		r := runCLI(t, "setup", "claude-desktop", "--vault", other, "--command", bin, "--toolsets", "all", "--read-only")
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Contains(t, r.stdout, `updated the server "vaultgraph"`)
		assert.Equal(t, []any{"serve", "--vault", other, "--read-only=true", "--toolsets=all"}, serverEntry(t, file, "vaultgraph")["args"])
	})
}

func TestSetupRefusesBadJSONWithNothingLost(t *testing.T) {
	isolate(t)
	vault := newVault(t)
	file := desktopConfig()
	bad := "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"a\"}\n    \"b\": {}\n  }\n}\n"
	writeJSONFile(t, file, bad)
	for _, extra := range [][]string{nil, {"--dry-run"}} {
		r := runCLI(t, append([]string{"setup", "claude-desktop", "--vault", vault, "--command", fakeBinary(t)}, extra...)...)
		assert.Equal(t, exitError, r.code)
		assert.Contains(t, r.stderr, file+" is not a valid client configuration (line 4, column 5: invalid character '\"' after object value")
		assert.Contains(t, r.stderr, "nothing was changed")
		assert.Empty(t, r.stdout)
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		assert.Equal(t, bad, string(data))
		entries, err := os.ReadDir(filepath.Dir(file))
		require.NoError(t, err)
		assert.Len(t, entries, 1, "no backup, no temporary file")
	}
}

func TestSetupClaudeCodeWritesTheProjectsMCPJSON(t *testing.T) {
	wd := isolate(t)
	vault := newVault(t)
	bin := fakeBinary(t)
	project := filepath.Join(wd, "app")
	writeJSONFile(t, filepath.Join(project, ".mcp.json"), `{"mcpServers": {"github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"}}}`)

	r := runCLI(t, "setup", "claude-code", "--project", project, "--vault", vault, "--command", bin)
	require.Equal(t, exitOK, r.code, r.stderr)
	file := filepath.Join(project, ".mcp.json")
	assert.Contains(t, r.stdout, file)
	assert.Equal(t, map[string]any{"type": "stdio", "command": bin, "args": []any{"serve", "--vault", vault}}, serverEntry(t, file, "vaultgraph"))
	assert.Equal(t, "http", serverEntry(t, file, "github")["type"])

	t.Run("default project: the current folder", func(t *testing.T) {
		r := runCLI(t, "setup", "claude-code", "--vault", vault, "--command", bin, "--name", "notes")
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Equal(t, bin, serverEntry(t, filepath.Join(wd, ".mcp.json"), "notes")["command"])
	})
}

// Issue 47: --scope user writes Claude Code's user file, ~/.claude.json,
// keeping the rest of it; --scope is refused for other clients.
func TestSetupClaudeCodeUserScope(t *testing.T) {
	isolate(t)
	vault := newVault(t)
	bin := fakeBinary(t)
	file := filepath.Join(os.Getenv("HOME"), ".claude.json")
	writeJSONFile(t, file, `{"numStartups": 3, "projects": {"/src/app": {"allowedTools": []}}, "mcpServers": {"github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"}}}`)

	r := runCLI(t, "setup", "claude-code", "--scope", "user", "--vault", vault, "--command", bin)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, file)
	assert.Equal(t, map[string]any{"type": "stdio", "command": bin, "args": []any{"serve", "--vault", vault}}, serverEntry(t, file, "vaultgraph"))
	assert.Equal(t, "http", serverEntry(t, file, "github")["type"])
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"numStartups": 3`, "the rest of the file is kept")
	_, err = os.Stat(filepath.Join(os.Getenv("HOME"), ".mcp.json"))
	assert.True(t, os.IsNotExist(err), "no project file is written")

	r = runCLI(t, "setup", "cursor", "--scope", "user", "--vault", vault, "--command", bin)
	assert.Equal(t, exitUsage, r.code)
	r = runCLI(t, "setup", "claude-code", "--scope", "team", "--vault", vault, "--command", bin)
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, `--scope "team" is not one of project, user`)
}

func TestSetupCursor(t *testing.T) {
	wd := isolate(t)
	vault := newVault(t)
	bin := fakeBinary(t)

	r := runCLI(t, "setup", "cursor", "--vault", vault, "--command", bin)
	require.Equal(t, exitOK, r.code, r.stderr)
	global := filepath.Join(os.Getenv("HOME"), ".cursor", "mcp.json")
	assert.Equal(t, []any{"serve", "--vault", vault}, serverEntry(t, global, "vaultgraph")["args"])
	assert.NotContains(t, r.stdout, "the file as it was", "a new file has no backup")

	r = runCLI(t, "setup", "cursor", "--project", wd, "--vault", vault, "--command", bin)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, bin, serverEntry(t, filepath.Join(wd, ".cursor", "mcp.json"), "vaultgraph")["command"])
}

// TestSetupEditsAJSONCFileInPlace (issue 47.6): a Cursor file with comments,
// trailing commas and four-space indentation gets the entry and nothing
// else: the dry run's diff adds only the entry's lines (and changes none),
// the comments survive, and setup again leaves the file byte-identical.
// Claude Desktop is told its file has comments.
func TestSetupEditsAJSONCFileInPlace(t *testing.T) {
	isolate(t)
	vault := newVault(t)
	bin := fakeBinary(t)
	file := filepath.Join(os.Getenv("HOME"), ".cursor", "mcp.json")
	original := `// my servers
{
    "mcpServers": {
        /* hosted */ "github": {"url": "https://api.githubcopilot.com/mcp/"},
        "time": {
            "command": "uvx",   "args": ["mcp-server-time"],
        },
    },
}
`
	writeJSONFile(t, file, original)

	r := runCLI(t, "setup", "cursor", "--vault", vault, "--command", bin, "--dry-run")
	require.Equal(t, exitOK, r.code, r.stderr)
	var added []string
	for _, line := range strings.Split(r.stdout, "\n") {
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
		case strings.HasPrefix(line, "-"):
			t.Errorf("the dry run removes a line: %q", line)
		case strings.HasPrefix(line, "+"):
			added = append(added, line)
		}
	}
	assert.Equal(t, `+        "vaultgraph": {`, added[0])
	assert.Equal(t, `+        },`, added[len(added)-1], "the file's trailing commas are kept up")

	r = runCLI(t, "setup", "cursor", "--vault", vault, "--command", bin)
	require.Equal(t, exitOK, r.code, r.stderr)
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(data), original[:strings.Index(original, "    },\n}")]), "everything before the entry is as it was:\n%s", data)
	assert.True(t, strings.HasSuffix(string(data), "        },\n    },\n}\n"))
	assert.NotContains(t, r.stdout, "note:", "only Claude Desktop is warned about comments")

	r = runCLI(t, "setup", "cursor", "--vault", vault, "--command", bin)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "nothing to do")
	again, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, string(data), string(again))

	writeJSONFile(t, desktopConfig(), original)
	r = runCLI(t, "setup", "claude-desktop", "--vault", vault, "--command", bin)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "note: the file has comments or trailing commas, which Claude Desktop may refuse to read")
}

// TestSetupPassesAConfigTheServerWouldNotFind: a desktop client starts the
// server in another folder, where ./vaultgraph.yaml is not found; setup
// names it with --config. The user config file needs no flag.
func TestSetupPassesAConfigTheServerWouldNotFind(t *testing.T) {
	wd := isolate(t)
	vault := newVault(t)
	bin := fakeBinary(t)
	r := runCLI(t, "init", vault, "--output", "vaultgraph.yaml")
	require.Equal(t, exitOK, r.code, r.stderr)
	r = runCLI(t, "setup", "claude-desktop", "--command", bin)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, []any{"serve", "--config", filepath.Join(wd, "vaultgraph.yaml"), "--vault", vault}, serverEntry(t, desktopConfig(), "vaultgraph")["args"])

	require.NoError(t, os.Remove(filepath.Join(wd, "vaultgraph.yaml")))
	r = runCLI(t, "init", vault)
	require.Equal(t, exitOK, r.code, r.stderr)
	r = runCLI(t, "setup", "claude-desktop", "--command", bin)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, []any{"serve", "--vault", vault}, serverEntry(t, desktopConfig(), "vaultgraph")["args"],
		"the server reads "+config.UserFile()+" from any folder")
}

func TestSetupUsageErrors(t *testing.T) {
	isolate(t)
	vault := newVault(t)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown client", []string{"setup", "vscode"}, `unknown client "vscode", want one of claude-desktop, claude-code, cursor`},
		{"no vault", []string{"setup", "claude-desktop", "--command", "/x/vaultgraph"}, "vault: not set: pass --vault DIR"},
		{"the test binary is a temporary build", []string{"setup", "claude-desktop", "--vault", vault}, "runs from a temporary build folder"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, tc.args...)
			assert.Equal(t, exitUsage, r.code)
			assert.Contains(t, r.stderr, tc.want)
			assert.NoFileExists(t, desktopConfig())
		})
	}
}

func TestSetupListsTheClients(t *testing.T) {
	isolate(t)
	r := runCLI(t, "setup")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "claude-desktop  "+desktopConfig()+" (not there yet)\n")
	assert.Contains(t, r.stdout, "cursor          "+filepath.Join(os.Getenv("HOME"), ".cursor", "mcp.json"))
	assert.Contains(t, r.stdout, "claude-code     ")
}
