// Package flat is an exact nearest-neighbour index over unit vectors: every
// vector of one dimension in one contiguous []float32 (cache friendly, no
// pointer chasing), scanned in full for each query and split across the
// CPUs when large. Vectors are normalised on the way in, so a dot product
// is the cosine.
//
// Both stores search with it: the embedded store holds its vectors in one
// Index per model, and the Neo4j store mirrors the vectors of a project in
// one to answer without the database's approximate (HNSW) index. Sharing it
// makes their answers the same, score for score.
//
// An Index is not safe for concurrent use; callers guard it (TopK only
// reads, so a RWMutex's read side suffices for queries).
package flat

import (
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/vaultgraph/vaultgraph/core"
)

// parallelRows is the row count from which a scan is split across
// goroutines; below it the split costs more than it saves.
const parallelRows = 16384

// Index holds unit vectors of one dimension by ID.
type Index struct {
	dim  int
	ids  []string
	rows map[string]int // ID -> row
	data []float32      // row r is data[r*dim : (r+1)*dim]
}

// New returns an empty index of vectors of dim dimensions.
func New(dim int) *Index {
	return &Index{dim: dim, rows: map[string]int{}}
}

// Dim is the dimension of the index's vectors.
func (x *Index) Dim() int { return x.dim }

// Len is the number of vectors held.
func (x *Index) Len() int { return len(x.ids) }

// Has reports whether id has a vector.
func (x *Index) Has(id string) bool {
	_, ok := x.rows[id]
	return ok
}

// Set records unit (see Normalize) as id's vector, replacing any earlier
// one. It panics when unit's length is not the index's dimension: callers
// check, because a model's dimension never changes.
func (x *Index) Set(id string, unit []float32) {
	if len(unit) != x.dim {
		panic("flat: vector of the wrong dimension")
	}
	if r, ok := x.rows[id]; ok {
		copy(x.data[r*x.dim:(r+1)*x.dim], unit)
		return
	}
	x.rows[id] = len(x.ids)
	x.ids = append(x.ids, id)
	x.data = append(x.data, unit...)
}

// Remove drops id's vector, moving the last row into its place; false when
// id had none.
func (x *Index) Remove(id string) bool {
	r, ok := x.rows[id]
	if !ok {
		return false
	}
	delete(x.rows, id)
	last := len(x.ids) - 1
	if r != last {
		moved := x.ids[last]
		x.ids[r] = moved
		x.rows[moved] = r
		copy(x.data[r*x.dim:(r+1)*x.dim], x.data[last*x.dim:])
	}
	x.ids[last] = ""
	x.ids = x.ids[:last]
	x.data = x.data[:last*x.dim]
	return true
}

// IDs returns the IDs held, in no particular order.
func (x *Index) IDs() []string { return slices.Clone(x.ids) }

// TopK returns the k vectors with the highest cosine to the unit vector q,
// best first, ties by ID ascending, scores clamped to [0, 1]. A query of
// another dimension finds nothing.
func (x *Index) TopK(q []float32, k int) []core.ScoredID {
	n := len(x.ids)
	if k <= 0 || n == 0 || len(q) != x.dim {
		return nil
	}
	parts := 1
	if n >= parallelRows {
		parts = min(runtime.GOMAXPROCS(0), 8)
	}
	heaps := make([]topHeap, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*n/parts, (p+1)*n/parts
		wg.Go(func() { heaps[p] = x.scan(q, k, lo, hi) })
	}
	wg.Wait()
	all := heaps[0]
	for _, h := range heaps[1:] {
		for _, c := range h.items {
			all.offer(c, k)
		}
	}
	slices.SortFunc(all.items, func(a, b candidate) int { return -compareCandidates(a, b, x.ids) })
	out := make([]core.ScoredID, len(all.items))
	for i, c := range all.items {
		out[i] = core.ScoredID{ID: x.ids[c.row], Score: min(1, max(0, float64(c.score)))}
	}
	return out
}

// scan scores rows lo..hi-1 into a heap of the best k.
func (x *Index) scan(q []float32, k, lo, hi int) topHeap {
	h := topHeap{ids: x.ids}
	dim := x.dim
	for r := lo; r < hi; r++ {
		score := dot(q, x.data[r*dim:(r+1)*dim])
		if len(h.items) == k && score < h.items[0].score {
			continue // cheap reject before the full comparison
		}
		h.offer(candidate{row: r, score: score}, k)
	}
	return h
}

// Normalize returns v scaled to unit length, or nil for an empty or zero
// vector (or one holding NaN or infinity): nothing to search with.
func Normalize(v []float32) []float32 { return NormalizeInto(nil, v) }

// NormalizeInto is Normalize writing into the first len(v) elements of
// dst when its capacity allows (a buffer the caller reuses for a batch of
// vectors), into a new slice otherwise.
func NormalizeInto(dst, v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 || math.IsNaN(sum) || math.IsInf(sum, 0) {
		return nil
	}
	if cap(dst) < len(v) {
		dst = make([]float32, len(v))
	}
	dst = dst[:len(v)]
	inv := 1 / math.Sqrt(sum)
	for i, x := range v {
		dst[i] = float32(float64(x) * inv)
	}
	return dst
}

// dotGo is the dot product of two vectors of equal length, unrolled by
// four (the compiler keeps the four sums in registers): the portable dot.
func dotGo(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

type candidate struct {
	row   int
	score float32
}

// compareCandidates orders by score, then by ID descending, so that the
// greatest candidate is the best (ties go to the smaller ID).
func compareCandidates(a, b candidate, ids []string) int {
	switch {
	case a.score < b.score:
		return -1
	case a.score > b.score:
		return 1
	}
	return strings.Compare(ids[b.row], ids[a.row])
}

// topHeap is a min-heap of the best candidates seen: its root is the worst
// of them, the one to replace.
type topHeap struct {
	ids   []string
	items []candidate
}

func (h *topHeap) less(i, j int) bool { return compareCandidates(h.items[i], h.items[j], h.ids) < 0 }

func (h *topHeap) offer(c candidate, k int) {
	if len(h.items) < k {
		h.items = append(h.items, c)
		for i := len(h.items) - 1; i > 0; {
			p := (i - 1) / 2
			if !h.less(i, p) {
				break
			}
			h.items[i], h.items[p] = h.items[p], h.items[i]
			i = p
		}
		return
	}
	if compareCandidates(c, h.items[0], h.ids) <= 0 {
		return
	}
	h.items[0] = c
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h.items) && h.less(l, m) {
			m = l
		}
		if r < len(h.items) && h.less(r, m) {
			m = r
		}
		if m == i {
			return
		}
		h.items[i], h.items[m] = h.items[m], h.items[i]
		i = m
	}
}
