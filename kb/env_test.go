package kb_test

import (
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/kb"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/vault"
)

const project = "p"

// env is a vault on disk mirrored into memstore by the vault package, and
// a knowledge base Service writing through the vault's writer: the same
// wiring as the server.
type env struct {
	root  string
	store *memstore.Store
	svc   *kb.Service
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

var fixedNow = func() time.Time { return time.Date(2025, 12, 10, 14, 30, 0, 0, time.UTC) }

// newEnv writes files (vault-relative path → content) and starts the env.
func newEnv(t testing.TB, files map[string]string) *env {
	t.Helper()
	root := t.TempDir()
	for rel, content := range files {
		writeFile(t, filepath.Join(root, filepath.FromSlash(rel)), content)
	}
	return startEnv(t, root)
}

// newEnvFrom copies the folder src into a fresh vault.
func newEnvFrom(t testing.TB, src string) *env {
	t.Helper()
	root := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		writeFile(t, filepath.Join(root, rel), string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return startEnv(t, root)
}

func startEnv(t testing.TB, root string) *env {
	t.Helper()
	store := memstore.New()
	mirror, err := vault.NewMirror(vault.Config{Root: root, Project: project, Store: store, Logger: quietLogger(), NoProgress: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mirror.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	svc, err := kb.New(kb.Config{Root: root, Files: mirror.Writer(), Logger: quietLogger(), Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close() })
	return &env{root: root, store: store, svc: svc}
}

func writeFile(t testing.TB, abs, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// read returns a vault file's content, "" with ok false when missing.
func (e *env) read(t *testing.T, rel string) (string, bool) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(e.root, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(data), true
}

// inStore reports whether the graph store holds the note with this ID.
func (e *env) inStore(t *testing.T, id string) bool {
	t.Helper()
	_, err := e.store.GetNote(t.Context(), project, id)
	return err == nil
}

// code is the spec code of err, "" when it has none.
func code(err error) string {
	var e *kb.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func wantCode(t *testing.T, err error, want string) *kb.Error {
	t.Helper()
	var e *kb.Error
	if !errors.As(err, &e) || e.Code != want {
		t.Fatalf("err = %v, want code %s", err, want)
	}
	return e
}
