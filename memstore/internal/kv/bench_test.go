package kv

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkRandomLookups reads random 3 KiB values of a 60 MiB file one
// transaction each, as calls reading note bodies do: the cost of the page
// release (pages_linux.go) is the minor faults of pages read again.
func BenchmarkRandomLookups(b *testing.B) {
	db, err := Open(filepath.Join(b.TempDir(), "state.db"), time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	const n, size = 20_000, 3 << 10
	value := make([]byte, size)
	for start := 0; start < n; start += 2048 {
		err := db.Update(func(tx *Tx) error {
			for i := start; i < min(start+2048, n); i++ {
				if err := tx.PutRaw("bodies", fmt.Sprintf("note-%06d", i), value); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for b.Loop() {
		key := fmt.Sprintf("note-%06d", rng.IntN(n))
		_ = db.View(func(tx *Tx) error {
			if len(tx.GetRaw("bodies", key)) != size {
				b.Fatal("value missing")
			}
			return nil
		})
	}
}
