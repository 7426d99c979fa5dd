package view

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// CacheFileName is the layout cache's file name in the vault's state
// folder (beside the embedded store's file; for Neo4j the same folder).
const CacheFileName = "view-layout.json.gz"

// cacheVersion changes when the file's meaning changes; a file of another
// version is ignored (the layout is computed again).
const cacheVersion = 1

// cacheEntry is what the cache keeps of a note: its position, and its
// title and tags as of Path and Hash (valid while both are unchanged).
type cacheEntry struct {
	Path  string   `json:"p"`
	Hash  string   `json:"h"`
	Title string   `json:"t"`
	Tags  []string `json:"g,omitempty"`
	X     float64  `json:"x"`
	Y     float64  `json:"y"`
}

type cacheFile struct {
	Version int                   `json:"version"`
	Project string                `json:"project"`
	Notes   map[string]cacheEntry `json:"notes"`
}

// readCache returns the cached notes of project in file, or nil when
// there is no usable cache (none, another version or project, unreadable:
// a broken cache only costs a new layout).
func readCache(file, project string) (map[string]cacheEntry, error) {
	if file == "" {
		return nil, nil
	}
	f, err := os.Open(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("view: layout cache %s: %w", file, err)
	}
	var c cacheFile
	if err := json.NewDecoder(zr).Decode(&c); err != nil {
		return nil, fmt.Errorf("view: layout cache %s: %w", file, err)
	}
	if c.Version != cacheVersion || c.Project != project {
		return nil, nil
	}
	return c.Notes, nil
}

// cacheEntries is what the cache keeps of nodes; call it under the lock
// that guards them.
func cacheEntries(nodes map[string]*node) map[string]cacheEntry {
	out := make(map[string]cacheEntry, len(nodes))
	for _, n := range nodes {
		if n.Placed {
			out[n.ID] = cacheEntry{Path: n.Path, Hash: n.Hash, Title: n.Title, Tags: n.Tags, X: n.X, Y: n.Y}
		}
	}
	return out
}

// writeCache replaces file with entries (temporary file, rename), so a
// crash leaves the old cache or the new one.
func writeCache(file, project string, entries map[string]cacheEntry) error {
	if file == "" {
		return nil
	}
	c := cacheFile{Version: cacheVersion, Project: project, Notes: entries}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), CacheFileName+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	zw := gzip.NewWriter(tmp)
	if err := json.NewEncoder(zw).Encode(&c); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := zw.Close(); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}
