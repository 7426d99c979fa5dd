package flat

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/core"
)

func randomUnit(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return Normalize(v)
}

// bruteForce is the definition TopK must meet: every vector scored, sorted
// by score descending then ID ascending, scores clamped to [0, 1].
func bruteForce(vectors map[string][]float32, q []float32, k int) []core.ScoredID {
	var all []core.ScoredID
	for id, v := range vectors {
		all = append(all, core.ScoredID{ID: id, Score: float64(dot(q, v))})
	}
	slices.SortFunc(all, func(a, b core.ScoredID) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	all = all[:min(k, len(all))]
	for i := range all {
		all[i].Score = min(1, max(0, all[i].Score))
	}
	return all
}

// TestTopKMatchesBruteForce drives an index through random sets, replaces
// and removes (both sides of the parallel-scan threshold) and compares
// every answer with scoring everything.
func TestTopKMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const dim = 16
	for _, n := range []int{1, 50, parallelRows + 100} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			x := New(dim)
			want := map[string][]float32{}
			for i := range n {
				id := fmt.Sprintf("n%05d", i)
				v := randomUnit(r, dim)
				x.Set(id, v)
				want[id] = v
			}
			// Replace some, remove some (including the last row and rows
			// that the last row then moves into).
			for i := 0; i < n; i += 7 {
				id := fmt.Sprintf("n%05d", i)
				v := randomUnit(r, dim)
				x.Set(id, v)
				want[id] = v
			}
			for i := n - 1; i >= 0; i -= 5 {
				id := fmt.Sprintf("n%05d", i)
				if !x.Remove(id) {
					t.Fatalf("Remove(%s) = false for a held ID", id)
				}
				delete(want, id)
			}
			if x.Remove("n-missing") {
				t.Fatal("Remove of an unknown ID = true")
			}
			if x.Len() != len(want) {
				t.Fatalf("Len = %d, want %d", x.Len(), len(want))
			}
			for qi := range 20 {
				q := randomUnit(r, dim)
				for _, k := range []int{1, 10, 100} {
					got, exp := x.TopK(q, k), bruteForce(want, q, k)
					if !slices.Equal(got, exp) {
						t.Fatalf("query %d k=%d: TopK = %v\nwant %v", qi, k, got[:min(3, len(got))], exp[:min(3, len(exp))])
					}
				}
			}
		})
	}
}

// TestTopKTiesAndEdges: equal scores go to the smaller ID; an empty index,
// k <= 0 and a query of another dimension find nothing.
func TestTopKTiesAndEdges(t *testing.T) {
	x := New(2)
	if got := x.TopK([]float32{1, 0}, 3); got != nil {
		t.Fatalf("empty index: %v", got)
	}
	for _, id := range []string{"c", "a", "b"} {
		x.Set(id, []float32{1, 0})
	}
	x.Set("d", []float32{0, 1})
	got := x.TopK([]float32{1, 0}, 2)
	want := []core.ScoredID{{ID: "a", Score: 1}, {ID: "b", Score: 1}}
	if !slices.Equal(got, want) {
		t.Fatalf("ties: %v, want %v", got, want)
	}
	if got := x.TopK([]float32{-1, 0}, 4); got[len(got)-1].Score != 0 {
		t.Fatalf("negative cosine not clamped to 0: %v", got)
	}
	if got := x.TopK([]float32{1, 0, 0}, 3); got != nil {
		t.Fatalf("query of another dimension: %v", got)
	}
	if got := x.TopK([]float32{1, 0}, 0); got != nil {
		t.Fatalf("k=0: %v", got)
	}
	if !x.Has("d") || x.Has("e") {
		t.Fatal("Has disagrees with Set")
	}
}

func TestNormalize(t *testing.T) {
	if v := Normalize([]float32{3, 4}); v[0] != 0.6 || v[1] != 0.8 {
		t.Fatalf("Normalize(3,4) = %v", v)
	}
	for _, bad := range [][]float32{nil, {0, 0}, {float32(posInf()), 1}} {
		if v := Normalize(bad); v != nil {
			t.Fatalf("Normalize(%v) = %v, want nil", bad, v)
		}
	}
}

func posInf() float64 { var z float64; return 1 / z }

// NormalizeInto writes Normalize's vector into the caller's buffer when it
// has room (and into a new slice when not), and keeps nothing else of it.
func TestNormalizeInto(t *testing.T) {
	v := []float32{3, 4, 12}
	buf := make([]float32, 5)
	got := NormalizeInto(buf[1:1], v)
	if len(got) != 3 || &got[0] != &buf[1] || got[0] != Normalize(v)[0] || got[2] != Normalize(v)[2] {
		t.Fatalf("NormalizeInto into room = %v (buffer %v), want Normalize's %v in the buffer", got, buf, Normalize(v))
	}
	if buf[0] != 0 || buf[4] != 0 {
		t.Fatalf("NormalizeInto wrote outside its vector: %v", buf)
	}
	if got := NormalizeInto(buf[:0:2], v); len(got) != 3 || &got[0] == &buf[0] {
		t.Fatalf("NormalizeInto without room = %v, want a new slice", got)
	}
	if got := NormalizeInto(buf, []float32{0, 0}); got != nil {
		t.Fatalf("NormalizeInto of a zero vector = %v, want nil", got)
	}
}

func TestSetRefusesAnotherDimension(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Set of a 3-dimensional vector into a 2-dimensional index did not panic")
		}
	}()
	New(2).Set("a", []float32{1, 0, 0})
}

// BenchmarkTopK is the scan both stores run per query: 100k vectors of the
// built-in model's 256 dimensions, 30 candidates.
func BenchmarkTopK(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	const dim, n = 256, 100_000
	x := New(dim)
	for i := range n {
		x.Set(fmt.Sprintf("n%06d", i), randomUnit(r, dim))
	}
	q := randomUnit(r, dim)
	b.ResetTimer()
	for b.Loop() {
		x.TopK(q, 30)
	}
}

func TestDotMatchesPortable(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 7, 8, 9, 31, 32, 33, 256, 384, 385} {
		a, b := randomUnit(r, max(n, 1))[:n], randomUnit(r, max(n, 1))[:n]
		if got, want := dot(a, b), dotGo(a, b); math.Abs(float64(got-want)) > 1e-5 {
			t.Errorf("n=%d: dot %g, portable %g", n, got, want)
		}
	}
}

func BenchmarkTopK384(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	const dim, n = 384, 100_000
	x := New(dim)
	for i := range n {
		x.Set(fmt.Sprintf("n%06d", i), randomUnit(r, dim))
	}
	q := randomUnit(r, dim)
	b.ResetTimer()
	for b.Loop() {
		x.TopK(q, 30)
	}
}
