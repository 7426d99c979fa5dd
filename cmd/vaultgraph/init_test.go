package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vaultgraph/vaultgraph/config"
)

func TestInitWritesTheUserConfigFile(t *testing.T) {
	wd := isolate(t)
	vault := newVault(t)

	r := runCLI(t, "init", vault)
	require.Equal(t, exitOK, r.code, r.stderr)
	file := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "vaultgraph", "config.yaml")
	assert.Equal(t, file, config.UserFile())
	assert.Contains(t, r.stdout, "wrote "+file+" for the vault "+vault+"\n", "init says where it wrote")
	assert.Contains(t, r.stdout, "from any folder")
	assert.NoFileExists(t, filepath.Join(wd, "vaultgraph.yaml"))
	st, err := os.Stat(file)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())

	// A command started in another folder, as a desktop client starts
	// serve (in / or its own folder), reads it.
	t.Chdir(t.TempDir())
	c, err := config.Load(config.LoadOptions{RequireVault: true})
	require.NoError(t, err)
	assert.Equal(t, file, c.File)
	assert.Equal(t, vault, c.Vault)
	r = runCLI(t, "status")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "config file: "+file)
	assert.Regexp(t, `vault\s+`+vault+`\s+`+file, r.stdout)
}

func TestInitSaysWhenAFolderFileTakesPrecedence(t *testing.T) {
	wd := isolate(t)
	vault := newVault(t)
	require.NoError(t, os.WriteFile(filepath.Join(wd, "vaultgraph.yaml"), []byte("store: embedded\n"), 0o600))
	r := runCLI(t, "init", vault)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "note: "+filepath.Join(wd, "vaultgraph.yaml")+" takes precedence when vaultgraph runs from this folder")
}

func TestInitWritesAFolderFileOnRequest(t *testing.T) {
	wd := isolate(t)
	vault := newVault(t)

	r := runCLI(t, "init", vault, "--output", "vaultgraph.yaml")
	require.Equal(t, exitOK, r.code, r.stderr)
	file := filepath.Join(wd, "vaultgraph.yaml")
	assert.Contains(t, r.stdout, "wrote "+file)
	assert.NotContains(t, r.stdout, "from any folder")
	c, err := config.Load(config.LoadOptions{RequireVault: true})
	require.NoError(t, err)
	assert.Equal(t, file, c.File)
	assert.Equal(t, vault, c.Vault)
}

func TestInitRefusesToOverwriteUnlessForced(t *testing.T) {
	isolate(t)
	vault := newVault(t)
	file := config.UserFile()
	require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
	require.NoError(t, os.WriteFile(file, []byte("store: neo4j\n"), 0o600))

	r := runCLI(t, "init", vault)
	assert.Equal(t, exitError, r.code)
	assert.Equal(t, "vaultgraph: init: "+file+" exists; pass --force to replace it\n", r.stderr)
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, "store: neo4j\n", string(data), "the existing file is untouched")

	r = runCLI(t, "init", vault, "--force")
	require.Equal(t, exitOK, r.code, r.stderr)
	data, err = os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, string(config.Template(vault)), string(data))
	leftovers, err := filepath.Glob(filepath.Join(filepath.Dir(file), ".config.yaml.*"))
	require.NoError(t, err)
	assert.Empty(t, leftovers, "no temporary file is left behind")
}

func TestInitVaultPath(t *testing.T) {
	t.Run("relative vault made absolute; --output in a new folder", func(t *testing.T) {
		wd := isolate(t)
		require.NoError(t, os.Mkdir(filepath.Join(wd, "notes"), 0o755))
		out := filepath.Join(wd, "conf", "vg.yaml")
		r := runCLI(t, "init", "notes", "--output", out)
		require.Equal(t, exitOK, r.code, r.stderr)
		r = runCLI(t, "status", "--config", out, "--format", "yaml")
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Contains(t, r.stdout, "vault: "+filepath.Join(wd, "notes")+" # from "+out)
	})
	t.Run("default is --vault, else the current folder", func(t *testing.T) {
		wd := isolate(t)
		vault := newVault(t)
		r := runCLI(t, "init", "--vault", vault, "-o", "a.yaml")
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Contains(t, r.stdout, "for the vault "+vault+"\n")
		r = runCLI(t, "init", "-o", "b.yaml")
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Contains(t, r.stdout, "for the vault "+wd+"\n")
	})
	t.Run("missing vault is a configuration error", func(t *testing.T) {
		wd := isolate(t)
		r := runCLI(t, "init", "nope")
		assert.Equal(t, exitUsage, r.code)
		assert.Equal(t, "vaultgraph: invalid configuration:\n  vault: \""+filepath.Join(wd, "nope")+"\" does not exist, want the vault folder\n", r.stderr)
		assert.NoFileExists(t, filepath.Join(wd, "vaultgraph.yaml"))
		assert.NoFileExists(t, config.UserFile())
	})
	t.Run("a file is not a vault", func(t *testing.T) {
		wd := isolate(t)
		require.NoError(t, os.WriteFile(filepath.Join(wd, "note.md"), nil, 0o600))
		r := runCLI(t, "init", "note.md")
		assert.Equal(t, exitUsage, r.code)
		assert.Contains(t, r.stderr, "is not a directory, want the vault folder")
	})
}
