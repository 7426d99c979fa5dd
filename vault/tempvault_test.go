package vault

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

const testProject = "test"

// writeVault creates a vault in a temporary folder with files (vault-relative
// path → content) and returns its root.
func writeVault(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		writeFile(t, root, p, content)
	}
	return root
}

// writeFile writes one file of a vault, creating its folders.
func writeFile(t testing.TB, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

// quietLogger discards logs so test output stays readable.
func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// newTestMirror returns a Mirror over root into store with test settings;
// change adjusts the config first.
func newTestMirror(t testing.TB, root string, store core.GraphStore, change ...func(*Config)) *Mirror {
	t.Helper()
	cfg := Config{Root: root, Project: testProject, Store: store, Logger: quietLogger(), NoProgress: true}
	for _, c := range change {
		c(&cfg)
	}
	m, err := NewMirror(cfg)
	require.NoError(t, err)
	return m
}

// targets returns the link targets of a note in the store, in link order.
func targets(t testing.TB, notes map[string]core.Note, id string) []string {
	t.Helper()
	n, ok := notes[id]
	require.True(t, ok, "note %s not in store", id)
	out := make([]string, len(n.Links))
	for i, l := range n.Links {
		out[i] = l.Target
	}
	return out
}
