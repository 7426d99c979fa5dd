package vault

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/memstore"
)

// A crash between writing and renaming leaves a hidden temporary file; a
// scan removes those older than staleTempAge and leaves fresh ones (a
// write in flight elsewhere) and other hidden files alone.
func TestSyncRemovesStaleTemporaryFiles(t *testing.T) {
	root := writeVault(t, map[string]string{
		"a.md":                        "a",
		"sub/.vaultgraph-111.tmp":     "stale",
		"sub/.vaultgraph-222.tmp":     "fresh",
		"sub/.other.tmp":              "not ours",
		".vaultgraph-333.tmp.keep.md": "not the pattern",
	})
	old := time.Now().Add(-2 * staleTempAge)
	for _, name := range []string{"sub/.vaultgraph-111.tmp", "sub/.other.tmp", ".vaultgraph-333.tmp.keep.md"} {
		if err := os.Chtimes(filepath.Join(root, name), old, old); err != nil {
			t.Fatal(err)
		}
	}
	m := newTestMirror(t, root, memstore.New())
	if _, err := m.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{
		"sub/.vaultgraph-111.tmp": false, "sub/.vaultgraph-222.tmp": true, "sub/.other.tmp": true, ".vaultgraph-333.tmp.keep.md": true, "a.md": true,
	} {
		if _, err := os.Stat(filepath.Join(root, name)); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", name, err == nil, want)
		}
	}
}
