package confine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkReadFile reads 1,000 notes of ~1.5 KB, two folders deep, as a
// first sync reads a vault (each read opens its folder and the file).
func BenchmarkReadFile(b *testing.B) {
	dir := b.TempDir()
	text := strings.Repeat("Some words of a note, [[a link]] and #tag.\n", 36)
	var rels []string
	for i := range 1000 {
		rel := fmt.Sprintf("f%d/g%d/note %d.md", i%10, i%7, i)
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
		rels = append(rels, rel)
	}
	r, err := OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	b.ReportAllocs()
	for b.Loop() {
		for _, rel := range rels {
			if _, _, err := r.ReadFile(rel, 0); err != nil {
				b.Fatal(err)
			}
		}
	}
}
