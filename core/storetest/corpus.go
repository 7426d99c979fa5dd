package storetest

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/vaultgraph/vaultgraph/core"
)

// SearchCorpus is a synthetic vault for search benchmarks and differential
// tests: notes whose words follow a Zipf law over a 20,000-word vocabulary
// (as natural text does: a few words everywhere, most words rare), vectors
// clustered around n/100 topics (as embeddings of real notes are, so that
// nearest neighbours mean something), and queries of both kinds.
type SearchCorpus struct {
	Notes   []core.Note
	Vectors [][]float32 // Vectors[i] belongs to Notes[i]
	Queries []CorpusQuery
}

// CorpusQuery is one search: a vector near a topic and two words, one
// common and one rarer.
type CorpusQuery struct {
	Vector []float32
	Text   string
}

// NewSearchCorpus builds n notes with dim-dimensional vectors and 200
// queries, the same for the same seed.
func NewSearchCorpus(seed uint64, n, dim int) *SearchCorpus {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	const vocab = 20_000
	zipf := rand.NewZipf(r, 1.1, 2, vocab-1)
	word := func() string { return corpusWord(int(zipf.Uint64())) }
	topics := max(10, n/100)
	centers := make([][]float32, topics)
	for i := range centers {
		centers[i] = gaussian(r, dim, 1)
	}
	near := func(c []float32) []float32 {
		v := gaussian(r, len(c), 0.6)
		for d := range v {
			v[d] += c[d]
		}
		return v
	}
	sc := &SearchCorpus{Notes: make([]core.Note, n), Vectors: make([][]float32, n)}
	var b strings.Builder
	for i := range n {
		b.Reset()
		for w := range 80 {
			if w > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(word())
		}
		id := fmt.Sprintf("topic-%03d/note-%06d.md", i%topics%1000, i)
		sc.Notes[i] = core.Note{
			ID: id, Path: id, Title: word() + " " + word() + " " + word(),
			Content: b.String(), Hash: fmt.Sprintf("h%d-%d", seed, i), Keys: []string{strings.TrimSuffix(id, ".md")},
		}
		sc.Vectors[i] = near(centers[i%topics])
	}
	for range 200 {
		sc.Queries = append(sc.Queries, CorpusQuery{
			Vector: near(centers[r.IntN(topics)]),
			Text:   corpusWord(r.IntN(50)) + " " + corpusWord(500+r.IntN(5000)),
		})
	}
	return sc
}

// corpusWord names word i of the synthetic vocabulary: letters only, so
// every analyser keeps it whole.
func corpusWord(i int) string {
	var b []byte
	for {
		b = append(b, byte('a'+i%26))
		i /= 26
		if i == 0 {
			break
		}
	}
	return "w" + string(b)
}

func gaussian(r *rand.Rand, dim int, sigma float64) []float32 {
	v := make([]float32, dim)
	for d := range v {
		v[d] = float32(r.NormFloat64() * sigma)
	}
	return v
}
