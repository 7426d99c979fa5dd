package minilm

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/vaultgraph/vaultgraph/internal/lowprio"
)

type reference struct {
	MaxTokens int `json:"max_tokens"`
	Cases     []struct {
		Text    string    `json:"text"`
		IDs     []int32   `json:"ids"`
		Float32 []float32 `json:"float32"`
		Int8    []float32 `json:"int8"`
	} `json:"cases"`
}

func loadReference(t testing.TB) reference {
	t.Helper()
	raw, err := os.ReadFile("../testdata/minilm_reference.json")
	require.NoError(t, err)
	var ref reference
	require.NoError(t, json.Unmarshal(raw, &ref))
	require.NotEmpty(t, ref.Cases)
	return ref
}

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

// TestMatchesPython checks the Go forward pass against the numpy one of
// scripts/embedding/export_minilm.py: the same int8 weights give the same
// vector (float rounding apart), and the original float32 model a vector
// within quantisation noise of it.
func TestMatchesPython(t *testing.T) {
	ref := loadReference(t)
	for _, workers := range []int{1, 3} {
		e, err := New(WithWorkers(workers), WithBatchWorkers(workers))
		require.NoError(t, err)
		require.Equal(t, ref.MaxTokens, e.MaxTokens())
		texts := make([]string, len(ref.Cases))
		for i, c := range ref.Cases {
			texts[i] = c.Text
		}
		vecs, err := e.Embed(t.Context(), texts)
		require.NoError(t, err)
		for i, c := range ref.Cases {
			if len(c.IDs) == 2 { // no tokens but [CLS] and [SEP]
				require.Equal(t, make([]float32, 384), vecs[i], "an empty text gives a zero vector")
				continue
			}
			require.Len(t, vecs[i], 384)
			require.InDelta(t, 1, cosine(vecs[i], vecs[i]), 1e-5)
			require.Greater(t, cosine(vecs[i], c.Int8), 0.99999, "case %d %.40q (workers %d)", i, c.Text, workers)
			require.Greater(t, cosine(vecs[i], c.Float32), 0.999, "case %d %.40q (workers %d)", i, c.Text, workers)
			// Alone, through the split-products path, the same vector.
			one, err := e.Embed(t.Context(), texts[i:i+1])
			require.NoError(t, err)
			require.Greater(t, cosine(one[0], vecs[i]), 0.999999)
		}
	}
}

// TestTokenIDs checks the tokens fed to the encoder, truncation included.
func TestTokenIDs(t *testing.T) {
	ref := loadReference(t)
	e, err := New()
	require.NoError(t, err)
	for _, c := range ref.Cases {
		ids := append([]int32{clsID}, e.tok.AppendIDs(nil, c.Text)...)
		if len(ids) > e.MaxTokens()-1 {
			ids = ids[:e.MaxTokens()-1]
		}
		ids = append(ids, sepID)
		require.Equal(t, c.IDs, ids, "%.40q", c.Text)
	}
}

// TestKernelsMatchGo checks the assembly tiles (where the CPU has them)
// against the portable ones on random inputs and strides.
func TestKernelsMatchGo(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, k := range []int{8, 32, 384, 1536} {
		ldx, ldw := k+8*r.IntN(3), k+8*r.IntN(3)
		x := make([]float32, 3*ldx+k)
		wf := make([]float32, ldw+k)
		wi := make([]int8, ldw+k)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		for i := range wf {
			wf[i] = float32(r.NormFloat64())
			wi[i] = int8(r.IntN(255) - 127)
		}
		var got, want [8]float32
		dotsI8(x, ldx, wi, ldw, k, &got)
		dotsI8Go(x, ldx, wi, ldw, k, &want)
		for i := range got {
			require.InDelta(t, want[i], got[i], 1e-3*math.Sqrt(float64(k))*127, "i8 k=%d i=%d", k, i)
		}
		dotsF32(x, ldx, wf, ldw, k, &got)
		dotsF32Go(x, ldx, wf, ldw, k, &want)
		for i := range got {
			require.InDelta(t, want[i], got[i], 1e-3*math.Sqrt(float64(k)), "f32 k=%d i=%d", k, i)
		}
	}
}

func TestExpAndErf(t *testing.T) {
	for x := -87.0; x <= 10; x += 0.01 {
		want := math.Exp(float64(float32(x)))
		require.InEpsilon(t, want, float64(expf(float32(x))), 3e-7, "exp(%g)", x)
	}
	for x := -6.0; x <= 6; x += 0.001 {
		require.InDelta(t, math.Erf(x), float64(erff(float32(x))), 5e-7, "erf(%g)", x)
	}
}

func TestExpInPlaceAndGELU(t *testing.T) {
	x := make([]float32, 0, 2000)
	for v := float32(-100); v < 88; v += 0.1 {
		x = append(x, v)
	}
	want := make([]float32, len(x))
	for i, v := range x {
		want[i] = expf(v)
	}
	got := append([]float32(nil), x...)
	expInPlace(got)
	for i := range x {
		if x[i] >= -87 {
			require.InEpsilon(t, want[i], got[i], 1e-6, "exp(%g)", x[i])
		} else {
			require.Less(t, got[i], float32(1e-37))
		}
	}
	g := make([]float32, 0, 1300)
	for v := float32(-6); v < 6; v += 0.01 {
		g = append(g, v)
	}
	ref := append([]float32(nil), g...)
	gelu(g, make([]float32, len(g)))
	for i, v := range ref {
		exact := 0.5 * float64(v) * (1 + math.Erf(float64(v)/math.Sqrt2))
		require.InDelta(t, exact, float64(g[i]), 2e-6, "gelu(%g)", v)
	}
}

func TestEmbedStopsWhenCancelled(t *testing.T) {
	e, err := New()
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = e.Embed(ctx, []string{"one text"})
	require.ErrorIs(t, err, context.Canceled)
	_, err = e.Embed(ctx, []string{"two", "texts"})
	require.ErrorIs(t, err, context.Canceled)
}

// Background work (lowprio) gives the same vectors as a query's path, one
// text or several.
func TestBackgroundEmbedGivesTheSameVectors(t *testing.T) {
	e, err := New()
	require.NoError(t, err)
	texts := []string{"the inverted index maps terms to notes", "chunking splits long documents"}
	want, err := e.Embed(t.Context(), texts)
	require.NoError(t, err)
	got, err := e.Embed(lowprio.With(t.Context()), texts)
	require.NoError(t, err)
	require.Equal(t, want, got)
	one, err := e.Embed(lowprio.With(t.Context()), texts[:1])
	require.NoError(t, err)
	for i := range one[0] {
		require.InDelta(t, want[0][i], one[0][i], 1e-5)
	}
}
