package kb

import (
	"fmt"
	"os"
	"path/filepath"
)

// writeAtomic replaces (or creates) the file at abs with data so that a
// reader sees the old content or the new, never a mix, and a crash leaves
// no half-written file: a temporary file in the same folder is written,
// flushed and renamed over abs, then the folder is flushed. It is used for
// the knowledge base metadata under .llm_bridges, which the vault's note
// writer refuses (hidden folder, not notes); notes themselves go through
// Files. The vault package has the same helper unexported.
func writeAtomic(abs string, data []byte) (err error) {
	dir := filepath.Dir(abs)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("kb: create folder %s: %w", filepath.Base(dir), err)
	}
	tmp, err := os.CreateTemp(dir, ".vaultgraph-*.tmp")
	if err != nil {
		return fmt.Errorf("kb: write %s: %w", filepath.Base(abs), err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("kb: write %s: %w", filepath.Base(abs), err)
	}
	if err = tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("kb: write %s: %w", filepath.Base(abs), err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("kb: write %s: %w", filepath.Base(abs), err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("kb: write %s: %w", filepath.Base(abs), err)
	}
	if err = os.Rename(tmp.Name(), abs); err != nil {
		return fmt.Errorf("kb: write %s: %w", filepath.Base(abs), err)
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync() // some file systems cannot sync folders; not worth failing for
		_ = d.Close()
	}
	return nil
}
