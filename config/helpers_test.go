package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"
)

// isolate gives the test a clean slate: no VAULTGRAPH_* variables, HOME and
// the XDG folders in temporary folders, and an empty working directory,
// which it returns. Tests that call it cannot run in parallel (t.Setenv).
func isolate(t *testing.T) string {
	t.Helper()
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, EnvPrefix) {
			t.Setenv(name, "") // registers the restore
			require.NoError(t, os.Unsetenv(name))
		}
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "xdg-config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "xdg-state"))
	wd := t.TempDir()
	t.Chdir(wd)
	return wd
}

// load parses args as the CLI would (global and serve flags) and loads.
func load(t *testing.T, args ...string) (*Config, error) {
	t.Helper()
	return loadWith(t, LoadOptions{}, args...)
}

func loadWith(t *testing.T, opts LoadOptions, args ...string) (*Config, error) {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	AddFlags(fs, FlagGlobal)
	AddFlags(fs, FlagServe)
	require.NoError(t, fs.Parse(args))
	opts.Flags = fs
	return Load(opts)
}

// writeFile writes content to path (creating folders) and returns path.
func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

// problemLines returns the "key: message" lines of a config error.
func problemLines(t *testing.T, err error) []string {
	t.Helper()
	require.Error(t, err)
	var ce *Error
	require.ErrorAs(t, err, &ce)
	lines := make([]string, len(ce.Problems))
	for i, p := range ce.Problems {
		lines[i] = p.String()
	}
	return lines
}

func newFlagSet() *pflag.FlagSet { return pflag.NewFlagSet("test", pflag.ContinueOnError) }
