package flat

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

func TestDotInt8MatchesThePortableLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 15, 16, 17, 31, 32, 33, 255, 256, 384, 1000} {
		a, b := make([]int8, n), make([]int8, n)
		for i := range a {
			a[i], b[i] = int8(r.IntN(256)-128), int8(r.IntN(256)-128)
		}
		if n > 0 {
			a[0], b[0] = -128, -128 // the extreme product
		}
		if got, want := dotInt8(a, b), dotInt8Go(a, b); got != want {
			t.Fatalf("n=%d: %d, want %d", n, got, want)
		}
	}
}

// TestInt8TopKFindsTheExactBestAmongItsCandidates: the approximate scan is
// only a first pass; what the embedded store relies on is that the exact
// top k are among the approximate top few times k.
func TestInt8TopKFindsTheExactBestAmongItsCandidates(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, dim := range []int{24, 256, 384} {
		for _, n := range []int{1, 300, parallelRows + 100} {
			t.Run(fmt.Sprintf("dim=%d,n=%d", dim, n), func(t *testing.T) {
				x := NewInt8(dim)
				exact := New(dim)
				for i := range n {
					v := randomUnit(r, dim)
					x.Set(i, v)
					exact.Set(fmt.Sprintf("%06d", i), v)
				}
				if x.Len() != n {
					t.Fatalf("Len %d, want %d", x.Len(), n)
				}
				const k = 10
				for range 20 {
					q := randomUnit(r, dim)
					cands := x.TopK(q, max(8*k, 256))
					rows := make([]int, len(cands))
					for i, c := range cands {
						rows[i] = c.Row
						if i > 0 && compareRowScores(cands[i-1], c) > 0 {
							t.Fatalf("candidates out of order at %d", i)
						}
					}
					for _, want := range exact.TopK(q, k) {
						row, _ := strconv.Atoi(want.ID)
						if !slices.Contains(rows, row) {
							t.Fatalf("exact hit %s (%.4f) not among %d candidates", want.ID, want.Score, len(cands))
						}
					}
				}
			})
		}
	}
}

func TestInt8ClearAndReuseRows(t *testing.T) {
	x := NewInt8(4)
	x.Set(3, Normalize([]float32{1, 0, 0, 0}))
	x.Set(0, Normalize([]float32{0, 1, 0, 0}))
	if x.Len() != 2 || !x.Has(3) || x.Has(1) {
		t.Fatalf("len %d", x.Len())
	}
	x.Clear(3)
	x.Clear(3)
	if x.Len() != 1 || x.Has(3) {
		t.Fatalf("after clear: len %d", x.Len())
	}
	got := x.TopK([]float32{1, 0, 0, 0}, 5)
	if len(got) != 1 || got[0].Row != 0 || got[0].Score != 0 {
		t.Fatalf("got %v", got)
	}
	x.Set(3, Normalize([]float32{1, 1, 0, 0}))
	got = x.TopK(Normalize([]float32{1, 0, 0, 0}), 1)
	if len(got) != 1 || got[0].Row != 3 || got[0].Score < 0.70 || got[0].Score > 0.72 {
		t.Fatalf("got %v", got)
	}
}

func TestInt8ReserveKeepsRowsAndAddsEmptyOnes(t *testing.T) {
	x := NewInt8(4)
	x.Set(1, Normalize([]float32{0, 1, 0, 0}))
	x.Reserve(100)
	x.Reserve(10) // never shrinks
	if x.Len() != 1 || !x.Has(1) || x.Has(0) || x.Has(99) {
		t.Fatalf("after reserve: len %d", x.Len())
	}
	x.Set(99, Normalize([]float32{1, 0, 0, 0}))
	got := x.TopK([]float32{1, 0, 0, 0}, 5)
	if len(got) != 2 || got[0].Row != 99 || got[1].Row != 1 {
		t.Fatalf("got %v", got)
	}
}
