package embedding

import (
	"context"
	"sort"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding/builtin"
	"github.com/vaultgraph/vaultgraph/embedding/minilm"
)

// NewFast returns the fast tier of provider's model (arguments as New's),
// or nil when it has one tier. The built-in provider has two: its model is the transformer
// (embedding/minilm: transformer quality, ~8 notes/s per CPU), and its fast
// tier is the static table (embedding/builtin: thousands of notes/s), so
// that notes are searchable at once while their transformer vectors fill
// in (semantic.Indexer).
//
// The fast tier's vectors are the static table's padded with zeros to the
// transformer's dimension (cosines unchanged), so that both tiers' vectors
// fit one Neo4j vector index, and its Calibrate method maps its cosines
// onto the transformer's scale (semantic.Searcher compares them).
func NewFast(provider, model string) (core.Embedder, error) {
	if provider != "" && provider != ProviderBuiltin || model != "" && model != BuiltinTransformer {
		return nil, nil
	}
	s, err := builtin.New()
	if err != nil {
		return nil, err
	}
	return &paddedStatic{Embedder: s, dim: minilm.Dimension}, nil
}

// paddedStatic is the static table with vectors padded to dim.
type paddedStatic struct {
	*builtin.Embedder
	dim int
}

// Model is the static table's id with the padding: a vector of another
// length is another model for the stores.
func (p *paddedStatic) Model() string { return p.Embedder.Model() + "+pad384" }

// Dimension is the transformer's.
func (p *paddedStatic) Dimension() int { return p.dim }

// Embed embeds with the static table and pads each vector with zeros.
func (p *paddedStatic) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	vecs, err := p.Embedder.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	flat := make([]float32, len(vecs)*p.dim)
	for i, v := range vecs {
		out := flat[i*p.dim : (i+1)*p.dim : (i+1)*p.dim]
		copy(out, v)
		vecs[i] = out
	}
	return vecs, nil
}

// Calibrate maps a cosine of the static table to the transformer cosine of
// the same rank among query-note pairs: the two models' scores are not on
// one scale (the static table's cosines run higher), and a search over a
// vault whose notes are partly embedded by each compares them. The table
// is the quantiles of both models' query-note cosines over the hard
// evaluation's corpora (embedding/eval, TestHardEval logs them); between
// quantiles the map is linear.
func (p *paddedStatic) Calibrate(cos float64) float64 {
	return calibrate(staticQuantiles, minilmQuantiles, cos)
}

// staticQuantiles[i] and minilmQuantiles[i] are the same percentile of the
// query-note cosines of the static table and of the transformer over the
// hard evaluation's 32,824 query-note pairs (percentiles 0, 5, …, 95, 96,
// 97, 98, 99, 99.5, 99.8 and 100: finer at the top, where the answers
// are), between the ends of the cosine's range.
var (
	staticQuantiles = []float64{-1, -0.0552, 0.1952, 0.2321, 0.2586, 0.2795, 0.2980, 0.3137, 0.3285, 0.3431, 0.3573,
		0.3706, 0.3839, 0.3973, 0.4111, 0.4264, 0.4432, 0.4615, 0.4835, 0.5110, 0.5516, 0.5627, 0.5773, 0.5970,
		0.6260, 0.6509, 0.6857, 0.7896, 1}
	minilmQuantiles = []float64{-1, -0.2298, -0.0611, -0.0330, -0.0126, 0.0050, 0.0203, 0.0354, 0.0493, 0.0626, 0.0762,
		0.0905, 0.1050, 0.1197, 0.1359, 0.1538, 0.1739, 0.1963, 0.2245, 0.2589, 0.3176, 0.3377, 0.3610, 0.3913,
		0.4458, 0.5089, 0.5768, 0.7877, 1}
)

func calibrate(from, to []float64, x float64) float64 {
	i := sort.SearchFloat64s(from, x)
	switch {
	case i == 0:
		return to[0]
	case i >= len(from):
		return to[len(to)-1]
	}
	lo, hi := from[i-1], from[i]
	if hi == lo {
		return to[i]
	}
	return to[i-1] + (x-lo)/(hi-lo)*(to[i]-to[i-1])
}
