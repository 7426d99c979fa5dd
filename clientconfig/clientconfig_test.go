package clientconfig

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tailscale/hujson"
)

func TestPathsPerOS(t *testing.T) {
	env := func(goos, home string, vars map[string]string, project string) Env {
		return Env{GOOS: goos, Home: home, Getenv: func(k string) string { return vars[k] }, Project: project}
	}
	cases := []struct {
		client string
		env    Env
		want   string
	}{
		{"claude-desktop", env("darwin", "/Users/me", nil, ""), filepath.Join("/Users/me", "Library", "Application Support", "Claude", "claude_desktop_config.json")},
		{"claude-desktop", env("windows", `C:\Users\me`, map[string]string{"APPDATA": `C:\Users\me\AppData\Roaming`}, ""), filepath.Join(`C:\Users\me\AppData\Roaming`, "Claude", "claude_desktop_config.json")},
		{"claude-desktop", env("linux", "/home/me", nil, ""), "/home/me/.config/Claude/claude_desktop_config.json"},
		{"claude-desktop", env("linux", "/home/me", map[string]string{"XDG_CONFIG_HOME": "/home/me/cfg"}, ""), "/home/me/cfg/Claude/claude_desktop_config.json"},
		{"claude-desktop", env("linux", "/home/me", map[string]string{"XDG_CONFIG_HOME": "relative"}, ""), "/home/me/.config/Claude/claude_desktop_config.json"},
		{"claude-code", env("linux", "/home/me", nil, "/src/app"), "/src/app/.mcp.json"},
		{"claude-code", env("darwin", "/Users/me", nil, "/Users/me/src/app"), "/Users/me/src/app/.mcp.json"},
		{"cursor", env("darwin", "/Users/me", nil, ""), "/Users/me/.cursor/mcp.json"},
		{"cursor", env("windows", `C:\Users\me`, map[string]string{"APPDATA": `C:\x`}, ""), filepath.Join(`C:\Users\me`, ".cursor", "mcp.json")},
		{"cursor", env("linux", "/home/me", nil, "/src/app"), "/src/app/.cursor/mcp.json"},
	}
	for _, tc := range cases {
		t.Run(tc.client+" on "+tc.env.GOOS, func(t *testing.T) {
			c, ok := Lookup(tc.client)
			require.True(t, ok)
			got, err := c.Path(tc.env)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	t.Run("windows without APPDATA", func(t *testing.T) {
		c, _ := Lookup("claude-desktop")
		_, err := c.Path(env("windows", `C:\Users\me`, nil, ""))
		assert.ErrorContains(t, err, "APPDATA")
	})
	assert.Equal(t, []string{"claude-desktop", "claude-code", "cursor"}, Names())
	_, ok := Lookup("vscode")
	assert.False(t, ok)
}

// sample copies testdata/name to a temporary folder and returns its path.
func sample(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return path
}

// decode parses a JSON file into generic values for deep comparisons.
func decode(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m), "%s", data)
	return m
}

// keysOf lists the keys of the object at path (keys from the top) in file
// order; the file may be JSONC.
func keysOf(t *testing.T, data []byte, path ...string) []string {
	t.Helper()
	d, err := parseDoc(data)
	require.NoError(t, err)
	v := &d.root
	for _, k := range path {
		obj, err := d.object(v, k)
		require.NoError(t, err)
		i, ok := find(obj, k)
		require.True(t, ok, "no %q", k)
		v = &obj.Members[i].Value
	}
	obj, err := d.object(v, "")
	require.NoError(t, err)
	var keys []string
	for _, m := range obj.Members {
		keys = append(keys, m.Name.Value.(hujson.Literal).String())
	}
	return keys
}

var server = Server{Command: "/usr/local/bin/vaultgraph", Args: []string{"serve", "--vault", "/Users/me/notes & ideas"}}

// TestAddToEachClientsSample adds vaultgraph to a sample file of each
// client: every other server and setting is kept with its values and order,
// the entry has the client's shape, a backup holds the old bytes, and no
// temporary file is left.
func TestAddToEachClientsSample(t *testing.T) {
	cases := []struct {
		client, file string
		entry        map[string]any
	}{
		{"claude-desktop", "claude_desktop_config.json", map[string]any{"command": server.Command, "args": []any{"serve", "--vault", "/Users/me/notes & ideas"}}},
		{"claude-code", "mcp.json", map[string]any{"type": "stdio", "command": server.Command, "args": []any{"serve", "--vault", "/Users/me/notes & ideas"}}},
		{"cursor", "cursor_mcp.json", map[string]any{"command": server.Command, "args": []any{"serve", "--vault", "/Users/me/notes & ideas"}}},
	}
	for _, tc := range cases {
		t.Run(tc.client, func(t *testing.T) {
			c, _ := Lookup(tc.client)
			path := sample(t, tc.file)
			old, err := os.ReadFile(path)
			require.NoError(t, err)

			p, err := PlanServer(c, path, "vaultgraph", server)
			require.NoError(t, err)
			assert.Equal(t, "add", p.Action)
			after, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, old, after, "planning writes nothing")

			backup, err := Apply(p, time.Date(2026, 11, 25, 15, 4, 5, 0, time.UTC))
			require.NoError(t, err)
			assert.Equal(t, path+".vaultgraph-backup-20261125-150405", backup)
			b, err := os.ReadFile(backup)
			require.NoError(t, err)
			assert.Equal(t, old, b, "the backup is the file as it was")
			written, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, p.New, written)
			st, err := os.Stat(path)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "the file keeps its mode")

			before, now := decode(t, old), decode(t, written)
			wantServers := before["mcpServers"].(map[string]any)
			wantServers["vaultgraph"] = tc.entry
			assert.Equal(t, before, now, "only the vaultgraph entry is new")
			assert.Equal(t, keysOf(t, old), keysOf(t, written), "settings keep their order")
			assert.Equal(t, append(keysOf(t, old, "mcpServers"), "vaultgraph"), keysOf(t, written, "mcpServers"), "servers keep their order, the new one last")
			assert.Contains(t, string(written), `"/Users/me/notes & ideas"`, "no \\u0026 escapes")
			assertNoTemp(t, filepath.Dir(path))
		})
	}
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	tmp, err := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	require.NoError(t, err)
	assert.Empty(t, tmp, "no temporary file is left behind")
}

func TestUpdateKeepsTheEntrysOtherFields(t *testing.T) {
	c, _ := Lookup("claude-desktop")
	path := sample(t, "with_vaultgraph.json")
	p, err := PlanServer(c, path, "vaultgraph", server)
	require.NoError(t, err)
	assert.Equal(t, "update", p.Action)
	m := decode(t, p.New)
	entry := m["mcpServers"].(map[string]any)["vaultgraph"].(map[string]any)
	assert.Equal(t, server.Command, entry["command"])
	assert.Equal(t, map[string]any{"VAULTGRAPH_LOG_LEVEL": "debug"}, entry["env"], "the user's env stays")
	assert.Equal(t, map[string]any{"command": "other-mcp"}, m["mcpServers"].(map[string]any)["other"])

	d := p.Diff()
	assert.Contains(t, d, "--- "+path+"\n+++ "+path+"\n")
	assert.Contains(t, d, `-      "command": "/old/path/vaultgraph",`)
	assert.Contains(t, d, `+      "command": "/usr/local/bin/vaultgraph",`)
	assert.NotContains(t, d, `-        "VAULTGRAPH_LOG_LEVEL"`, "unchanged lines are context, not changes")

	t.Run("the same entry again changes nothing", func(t *testing.T) {
		_, err := Apply(p, time.Now())
		require.NoError(t, err)
		again, err := PlanServer(c, path, "vaultgraph", server)
		require.NoError(t, err)
		assert.Equal(t, "unchanged", again.Action)
		assert.Empty(t, again.Diff())
		before, err := os.ReadFile(path)
		require.NoError(t, err)
		backup, err := Apply(again, time.Now())
		require.NoError(t, err)
		assert.Empty(t, backup, "no backup when nothing changes")
		after, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, before, after)
	})
}

func TestMissingFileIsCreated(t *testing.T) {
	c, _ := Lookup("cursor")
	path := filepath.Join(t.TempDir(), "home", ".cursor", "mcp.json")
	p, err := PlanServer(c, path, "notes", server)
	require.NoError(t, err)
	assert.Equal(t, "add", p.Action)
	assert.Contains(t, p.Diff(), "--- /dev/null\n")
	backup, err := Apply(p, time.Now())
	require.NoError(t, err)
	assert.Empty(t, backup)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, `{
  "mcpServers": {
    "notes": {
      "command": "/usr/local/bin/vaultgraph",
      "args": [
        "serve",
        "--vault",
        "/Users/me/notes & ideas"
      ]
    }
  }
}
`, string(data))
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), st.Mode().Perm())
}

func TestEmptyFileIsAnEmptyObject(t *testing.T) {
	c, _ := Lookup("claude-desktop")
	path := filepath.Join(t.TempDir(), "c.json")
	require.NoError(t, os.WriteFile(path, []byte("\n  \n"), 0o644))
	p, err := PlanServer(c, path, "vaultgraph", server)
	require.NoError(t, err)
	assert.Equal(t, "add", p.Action)
}

// TestBadJSONIsRefusedWithNothingLost: a file setup cannot read as a
// client configuration is refused with where it stopped, and the file, its
// folder and its mode stay exactly as they were (no backup, no temporary
// file, no new file).
func TestBadJSONIsRefusedWithNothingLost(t *testing.T) {
	cases := map[string]string{
		"bad_missing_comma.json":     `line 3, column 3: invalid character '"' after object value (expecting ',' or '}')`,
		"bad_truncated.json":         "the JSON ends too early (line 4, column 1)",
		"bad_unclosed_comment.jsonc": "the JSON ends too early (line 2, column 20)",
		"bad_line_separator.jsonc":   "line 2, column 37: invalid character '\\u2028' in line comment",
		"bad_array.json":             "want a JSON object, found an array",
		"bad_servers_array.json":     `"mcpServers": want a JSON object, found an array`,
		"bad_entry_string.json":      "mcpServers.vaultgraph: want a JSON object, found a string",
		"bad_duplicate_key.json":     `line 1, column 20: the key "mcpServers" appears twice`,
		"bad_two_documents.json":     "line 1, column 20: invalid character '{' after top-level value",
	}
	for file, want := range cases {
		for _, client := range Names() {
			t.Run(file+" for "+client, func(t *testing.T) {
				c, _ := Lookup(client)
				path := sample(t, file)
				old, err := os.ReadFile(path)
				require.NoError(t, err)
				_, err = PlanServer(c, path, "vaultgraph", server)
				var ie *InvalidFileError
				require.True(t, errors.As(err, &ie), "%v", err)
				assert.ErrorContains(t, err, want)
				assert.ErrorContains(t, err, "nothing was changed")
				after, err := os.ReadFile(path)
				require.NoError(t, err)
				assert.Equal(t, old, after)
				entries, err := os.ReadDir(filepath.Dir(path))
				require.NoError(t, err)
				assert.Len(t, entries, 1, "no backup or temporary file")
			})
		}
	}
}

func TestApplyRefusesAFileChangedSincePlanning(t *testing.T) {
	c, _ := Lookup("claude-desktop")
	path := sample(t, "claude_desktop_config.json")
	p, err := PlanServer(c, path, "vaultgraph", server)
	require.NoError(t, err)
	edited := []byte(`{"mcpServers": {"mine": {"command": "x"}}}`)
	require.NoError(t, os.WriteFile(path, edited, 0o600))
	_, err = Apply(p, time.Now())
	assert.ErrorContains(t, err, "changed since it was read")
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, edited, after, "the client's own edit is kept")
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	assert.Len(t, entries, 1)
}

func TestBackupsNeverOverwriteEachOther(t *testing.T) {
	c, _ := Lookup("claude-desktop")
	path := sample(t, "claude_desktop_config.json")
	at := time.Date(2026, 11, 25, 15, 4, 5, 0, time.UTC)
	var backups []string
	for i, s := range []Server{server, {Command: "/b"}, {Command: "/c"}} {
		p, err := PlanServer(c, path, "vaultgraph", s)
		require.NoError(t, err, "run %d", i)
		b, err := Apply(p, at)
		require.NoError(t, err)
		backups = append(backups, b)
	}
	assert.Equal(t, []string{
		path + ".vaultgraph-backup-20261125-150405",
		path + ".vaultgraph-backup-20261125-150405-2",
		path + ".vaultgraph-backup-20261125-150405-3",
	}, backups)
	first, err := os.ReadFile(backups[0])
	require.NoError(t, err)
	orig, err := os.ReadFile(filepath.Join("testdata", "claude_desktop_config.json"))
	require.NoError(t, err)
	assert.Equal(t, orig, first, "the first backup still holds the original")
	assert.True(t, strings.HasSuffix(backups[2], "-3"))
}
