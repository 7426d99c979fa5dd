package semantic_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/semantic"
)

func TestProgressFileRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "vault")
	if _, ok := semantic.ReadProgressFile(dir); ok {
		t.Fatal("a folder without the file reads as progress")
	}
	at := time.Date(2026, 11, 28, 19, 0, 0, 0, time.FixedZone("x", 3600))
	if err := semantic.WriteProgressFile(dir, semantic.Progress{Model: "m", Embedded: 3, Total: 10, Rate: 1.5, Updated: at}); err != nil {
		t.Fatal(err)
	}
	p, ok := semantic.ReadProgressFile(dir)
	want := semantic.ProgressFile{Model: "m", Embedded: 3, Total: 10, NotesPerS: 1.5, Updated: at.UTC()}
	if !ok || p != want {
		t.Fatalf("read %+v (%v), want %+v", p, ok, want)
	}
	if err := os.WriteFile(filepath.Join(dir, semantic.ProgressFileName), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := semantic.ReadProgressFile(dir); ok {
		t.Fatal("a torn file reads as progress")
	}
}
