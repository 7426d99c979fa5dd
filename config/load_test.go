package config

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/internal/toolset"
)

func TestPrecedenceDefaultFileEnvFlag(t *testing.T) {
	type layer struct {
		file string // YAML written to ./vaultgraph.yaml
		env  string // value of the key's variable
		flag []string
	}
	cases := []struct {
		key  string
		get  func(*Config) any
		l    layer
		want [4]any // after default, +file, +env, +flag
	}{
		{
			key: "store", get: func(c *Config) any { return c.Store },
			l:    layer{file: "store: neo4j", env: "embedded", flag: []string{"--store", "neo4j"}},
			want: [4]any{"embedded", "neo4j", "embedded", "neo4j"},
		},
		{
			key: "log.level", get: func(c *Config) any { return c.Log.Level },
			l:    layer{file: "log: {level: warn}", env: "error", flag: []string{"--log-level", "debug"}},
			want: [4]any{"info", "warn", "error", "debug"},
		},
		{
			key: "toolsets", get: func(c *Config) any { return c.Toolsets },
			l:    layer{file: "toolsets: [memory]", env: "entities,kb", flag: []string{"--toolsets", "all"}},
			want: [4]any{toolset.Defaults(), []string{"memory"}, []string{"kb", "entities"}, Toolsets},
		},
		{
			key: "read_only", get: func(c *Config) any { return c.ReadOnly },
			l:    layer{file: "read_only: true", env: "false", flag: []string{"--read-only"}},
			want: [4]any{false, true, false, true},
		},
		{
			key: "http.addr", get: func(c *Config) any { return c.HTTP.Addr },
			l:    layer{file: "http:\n  addr: 127.0.0.1:1", env: "127.0.0.1:2", flag: []string{"--http", "localhost:3"}},
			want: [4]any{"", "127.0.0.1:1", "127.0.0.1:2", "localhost:3"},
		},
		{
			key: "watch", get: func(c *Config) any { return c.Watch },
			l:    layer{file: "watch: false", env: "true", flag: []string{"--watch=false"}},
			want: [4]any{true, false, true, false},
		},
		{ // a nested key without a flag: the last step changes nothing
			key: "neo4j.timeout", get: func(c *Config) any { return c.Neo4j.Timeout },
			l:    layer{file: "neo4j:\n  timeout: 5s", env: "1m"},
			want: [4]any{30 * time.Second, 5 * time.Second, time.Minute, time.Minute},
		},
	}
	for _, tc := range cases {
		t.Run(tc.key, func(t *testing.T) {
			k := lookupKey(tc.key)
			require.NotNil(t, k)
			wd := isolate(t)
			file := filepath.Join(wd, "vaultgraph.yaml")
			origins := [4]string{"default", file, "env " + k.env(), "flag --" + k.flag}

			for step := range 4 {
				switch step {
				case 1:
					writeFile(t, file, tc.l.file)
				case 2:
					t.Setenv(k.env(), tc.l.env)
				}
				var args []string
				if step == 3 {
					args = tc.l.flag
				}
				c, err := load(t, args...)
				require.NoError(t, err, "step %d", step)
				assert.Equal(t, tc.want[step], tc.get(c), "step %d", step)
				if step < 3 || k.flag != "" {
					assert.Equal(t, origins[step], c.Origin(tc.key), "step %d", step)
				}
			}
		})
	}
}

func TestEnvSetsKeysTheFileDoesNotMention(t *testing.T) {
	wd := isolate(t)
	writeFile(t, filepath.Join(wd, "vaultgraph.yaml"), "store: neo4j\n")
	t.Setenv("VAULTGRAPH_NEO4J_PASSWORD", "pw")
	t.Setenv("VAULTGRAPH_NEO4J_MAX_CONNECTIONS", "7")
	t.Setenv("VAULTGRAPH_EMBEDDING_PROVIDER", "ollama")
	t.Setenv("VAULTGRAPH_IGNORE", "drafts/*, *.tmp.md,")

	c, err := load(t)
	require.NoError(t, err)
	assert.Equal(t, StoreNeo4j, c.Store)
	assert.Equal(t, "pw", c.Neo4j.Password.Reveal())
	assert.Equal(t, 7, c.Neo4j.MaxConnections)
	assert.Equal(t, EmbeddingOllama, c.Embedding.Provider)
	assert.Equal(t, []string{"drafts/*", "*.tmp.md"}, c.Ignore)
	assert.Equal(t, "neo4j", c.Neo4j.User, "untouched keys keep their defaults")
}

func TestFileDiscoveryOrder(t *testing.T) {
	// Each candidate sets a different log level, so the winner shows.
	cases := []struct {
		name  string
		setup func(t *testing.T, wd, home string) (args []string, wantFile string)
		want  string
	}{
		{
			name: "--config wins over every other file",
			setup: func(t *testing.T, wd, home string) ([]string, string) {
				explicit := writeFile(t, filepath.Join(home, "elsewhere.yaml"), "log: {level: debug}")
				writeFile(t, filepath.Join(wd, "vaultgraph.yaml"), "log: {level: warn}")
				writeFile(t, filepath.Join(home, "xdg-config", "vaultgraph", "config.yaml"), "log: {level: error}")
				t.Setenv(EnvConfig, filepath.Join(wd, "vaultgraph.yaml"))
				return []string{"--config", explicit}, explicit
			},
			want: "debug",
		},
		{
			name: "VAULTGRAPH_CONFIG wins over the search path",
			setup: func(t *testing.T, wd, home string) ([]string, string) {
				explicit := writeFile(t, filepath.Join(home, "elsewhere.yaml"), "log: {level: debug}")
				writeFile(t, filepath.Join(wd, "vaultgraph.yaml"), "log: {level: warn}")
				t.Setenv(EnvConfig, explicit)
				return nil, explicit
			},
			want: "debug",
		},
		{
			name: "./vaultgraph.yaml wins over XDG",
			setup: func(t *testing.T, wd, home string) ([]string, string) {
				local := writeFile(t, filepath.Join(wd, "vaultgraph.yaml"), "log: {level: warn}")
				writeFile(t, filepath.Join(home, "xdg-config", "vaultgraph", "config.yaml"), "log: {level: error}")
				return nil, local
			},
			want: "warn",
		},
		{
			name: "$XDG_CONFIG_HOME/vaultgraph/config.yaml",
			setup: func(t *testing.T, wd, home string) ([]string, string) {
				return nil, writeFile(t, filepath.Join(home, "xdg-config", "vaultgraph", "config.yaml"), "log: {level: error}")
			},
			want: "error",
		},
		{
			name: "~/.config/vaultgraph/config.yaml when XDG_CONFIG_HOME is unset",
			setup: func(t *testing.T, wd, home string) ([]string, string) {
				t.Setenv("XDG_CONFIG_HOME", "")
				return nil, writeFile(t, filepath.Join(home, ".config", "vaultgraph", "config.yaml"), "log: {level: error}")
			},
			want: "error",
		},
		{
			name: "no file: defaults",
			setup: func(t *testing.T, wd, home string) ([]string, string) {
				return nil, ""
			},
			want: "info",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wd := isolate(t)
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "xdg-config"))
			args, wantFile := tc.setup(t, wd, home)
			c, err := load(t, args...)
			require.NoError(t, err)
			assert.Equal(t, tc.want, c.Log.Level)
			assert.Equal(t, wantFile, c.File)
		})
	}
}

func TestPathsExpandedAndMadeAbsolute(t *testing.T) {
	wd := isolate(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	cfgDir := filepath.Join(home, "conf")
	writeFile(t, filepath.Join(cfgDir, "vaultgraph.yaml"), "vault: notes\nstate_dir: ~/state\n")
	writeFile(t, filepath.Join(cfgDir, "notes", "a.md"), "# a")
	writeFile(t, filepath.Join(wd, "here", "b.md"), "# b")

	t.Run("relative to the config file when set there", func(t *testing.T) {
		c, err := load(t, "--config", filepath.Join(cfgDir, "vaultgraph.yaml"))
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(cfgDir, "notes"), c.Vault)
		assert.Equal(t, filepath.Join(home, "state"), c.StateDir)
	})
	t.Run("relative to the working directory when set by flag", func(t *testing.T) {
		c, err := load(t, "--config", filepath.Join(cfgDir, "vaultgraph.yaml"), "--vault", "here")
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(wd, "here"), c.Vault)
	})
	t.Run("default state dir follows XDG_STATE_HOME", func(t *testing.T) {
		t.Setenv("XDG_STATE_HOME", "")
		c, err := load(t)
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(home, ".local", "state", "vaultgraph"), c.StateDir)
		t.Setenv("XDG_STATE_HOME", "relative/is/ignored")
		c, err = load(t)
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(home, ".local", "state", "vaultgraph"), c.StateDir)
		t.Setenv("XDG_STATE_HOME", filepath.Join(home, "xs"))
		c, err = load(t)
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(home, "xs", "vaultgraph"), c.StateDir)
	})
}

func TestTokens(t *testing.T) {
	full := func(v string) Token { return Token{Value: Secret(v)} }
	ro := func(v string) Token { return Token{Value: Secret(v), ReadOnly: true} }
	cases := []struct {
		name string
		file string
		env  string
		want []Token
	}{
		{name: "none", want: nil},
		{name: "list of strings", file: "http:\n  tokens: [aaa, bbb]", want: []Token{full("aaa"), full("bbb")}},
		{
			name: "objects",
			file: "http:\n  tokens:\n    - {token: aaa, read_only: true}\n    - {token: bbb}\n    - {token: ccc, read_only: false}",
			want: []Token{ro("aaa"), full("bbb"), full("ccc")},
		},
		{name: "a plain string with ro: in the file", file: "http:\n  tokens: [aaa, 'ro:bbb']", want: []Token{full("aaa"), ro("bbb")}},
		{name: "env comma list with ro:", env: "aaa, ro:bbb,,ccc,", want: []Token{full("aaa"), ro("bbb"), full("ccc")}},
		{name: "env overrides the file", file: "http:\n  tokens: [zzz]", env: "ro:aaa", want: []Token{ro("aaa")}},
		{name: "a numeric token", file: "http:\n  tokens: [123456]", want: []Token{full("123456")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wd := isolate(t)
			if tc.file != "" {
				writeFile(t, filepath.Join(wd, "vaultgraph.yaml"), tc.file)
			}
			if tc.env != "" {
				t.Setenv("VAULTGRAPH_HTTP_TOKENS", tc.env)
			}
			c, err := load(t)
			require.NoError(t, err)
			assert.Equal(t, tc.want, c.HTTP.Tokens)
		})
	}
}

func TestToolRenamesReplaceTheDefault(t *testing.T) {
	cases := []struct {
		name, file, env string
		want            map[string]string
	}{
		{name: "default", want: map[string]string{"search": "memory_search"}},
		{name: "a file mapping replaces it, not merges", file: "tool_renames: {get_node: node}", want: map[string]string{"get_node": "node"}},
		{name: "an empty mapping renames nothing", file: "tool_renames: {}", want: map[string]string{}},
		{name: "env pairs", env: "search=mem_search, get_hubs=hubs", want: map[string]string{"search": "mem_search", "get_hubs": "hubs"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wd := isolate(t)
			if tc.file != "" {
				writeFile(t, filepath.Join(wd, "vaultgraph.yaml"), tc.file)
			}
			if tc.env != "" {
				t.Setenv("VAULTGRAPH_TOOL_RENAMES", tc.env)
			}
			c, err := load(t)
			require.NoError(t, err)
			assert.Equal(t, tc.want, c.ToolRenames)
		})
	}
}

func TestToolsetsExpanded(t *testing.T) {
	cases := map[string][]string{
		"all":                 Toolsets,
		"memory,graph,graph":  {"graph", "memory"},
		"kb, all":             Toolsets,
		"entities":            {"entities"},
		" memory , entities ": {"entities", "memory"},
	}
	for in, want := range cases {
		t.Run(in, func(t *testing.T) {
			isolate(t)
			t.Setenv("VAULTGRAPH_TOOLSETS", in)
			c, err := load(t)
			require.NoError(t, err)
			assert.Equal(t, want, c.Toolsets)
			assert.True(t, c.HasToolset(want[0]))
			assert.False(t, c.HasToolset(ToolsetAll))
		})
	}
}

func TestEmptyFileAndNullSectionsMeanDefaults(t *testing.T) {
	wd := isolate(t)
	writeFile(t, filepath.Join(wd, "vaultgraph.yaml"), "# only comments\nneo4j:\nhttp:\n")
	c, err := load(t)
	require.NoError(t, err)
	assert.Equal(t, "bolt://127.0.0.1:7687", c.Neo4j.URI)
	assert.Equal(t, Default().Neo4j, c.Neo4j)
}

func TestSyncOwnWatchFlagIsNotBound(t *testing.T) {
	// A command may define a flag that happens to share a key's flag name;
	// only flags defined by AddFlags set keys.
	isolate(t)
	fs := newFlagSet()
	fs.Bool("watch", false, "sync's own flag")
	require.NoError(t, fs.Parse([]string{"--watch"}))
	c, err := Load(LoadOptions{Flags: fs})
	require.NoError(t, err)
	assert.True(t, c.Watch, "the watch key keeps its default")

	fs = newFlagSet()
	fs.Bool("watch", false, "sync's own flag")
	require.NoError(t, fs.Parse([]string{"--watch=false"}))
	c, err = Load(LoadOptions{Flags: fs})
	require.NoError(t, err)
	assert.True(t, c.Watch, "the watch key keeps its default")
}
