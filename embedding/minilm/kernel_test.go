package minilm

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestQuantKernelsMatchGo checks every int8 tile the CPU has (VNNI, AVX2)
// against the portable one: the sums are exact, so they must be equal.
func TestQuantKernelsMatchGo(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	paths := map[string]*bool{"vnni": &useVNNI, "avx2": &useAVX2}
	for name, flag := range paths {
		if !*flag {
			t.Logf("%s: not on this CPU", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			saved := map[string]bool{"vnni": useVNNI, "avx2": useAVX2}
			defer func() { useVNNI, useAVX2 = saved["vnni"], saved["avx2"] }()
			useVNNI = name == "vnni"
			for _, k := range []int{64, 384, 1536} {
				for range 5 {
					ldx, ldw := k+64*r.IntN(3), k+64*r.IntN(3)
					x := make([]uint8, 3*ldx+k)
					w := make([]int8, 3*ldw+k)
					for i := range x {
						x[i] = uint8(r.IntN(256))
					}
					for i := range w {
						w[i] = int8(r.IntN(255) - 127)
					}
					// Extremes too: saturating paths would differ here.
					x[0], w[0], x[1], w[1] = 255, 127, 255, 127
					var got, want [16]int32
					dotsQ(x, ldx, w, ldw, k, &got)
					dotsQGo(x, ldx, w, ldw, k, &want)
					require.Equal(t, want, got, "k=%d", k)
				}
			}
		})
	}
}

// TestInt8ProductsMatchReference compares the int8 products (the default)
// with the float32-activation products they replaced on many texts:
// queries, notes of the eval vaults cut at 256 tokens, short and odd texts.
func TestInt8ProductsMatchReference(t *testing.T) {
	e, err := New(WithWorkers(1))
	require.NoError(t, err)
	texts := parityTexts(t)
	got, err := e.Embed(t.Context(), texts)
	require.NoError(t, err)
	referenceProducts = true
	want, err := e.Embed(t.Context(), texts)
	referenceProducts = false
	require.NoError(t, err)
	worst, sum, n := 1.0, 0.0, 0
	for i := range texts {
		c := cosine(got[i], want[i])
		if math.IsNaN(c) { // a text without tokens: zero vectors both
			continue
		}
		n++
		if c < worst {
			worst = c
		}
		sum += c
	}
	t.Logf("%d texts: cosine int8 vs float32 products: min %.6f, mean %.6f", len(texts), worst, sum/float64(n))
	require.GreaterOrEqual(t, worst, minCosineToReference)
}

// parityTexts are the texts of the kernel parity test: the reference
// sentences and the eval vault's notes with their first lines (query-sized
// texts); every eighth note in CI, all of them with VAULTGRAPH_SOAK=1.
func parityTexts(t *testing.T) []string {
	t.Helper()
	var texts []string
	for _, c := range loadReference(t).Cases {
		texts = append(texts, c.Text)
	}
	paths, err := filepath.Glob("../testdata/evalvault/*/*.md")
	require.NoError(t, err)
	step := 8
	if os.Getenv("VAULTGRAPH_SOAK") != "" {
		step = 1
	}
	for i := 0; i < len(paths); i += step {
		p := paths[i]
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		texts = append(texts, string(b))
		// The note's first line alone: a query-sized text.
		first, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
		texts = append(texts, first)
	}
	return texts
}

// TestQuantizeRowMatchesGo checks the assembly quantisation (where the CPU
// has AVX2) against the portable one: the bytes must be equal.
func TestQuantizeRowMatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, k := range []int{8, 384, 1536} {
		for range 20 {
			x := make([]float32, k)
			spread := float32(math.Exp(r.NormFloat64() * 2))
			for i := range x {
				x[i] = float32(r.NormFloat64()) * spread
			}
			x[r.IntN(k)] *= 20 // an outlier, as BERT's hidden states have
			lo, hi := minMax(x)
			glo, ghi := minMaxGo(x)
			require.Equal(t, [2]float32{glo, ghi}, [2]float32{lo, hi})
			inv := 255 / (hi - lo)
			gh, gl := make([]uint8, k), make([]uint8, k)
			wh, wl := make([]uint8, k), make([]uint8, k)
			quantizeRow(x, lo, inv, gh, gl)
			quantizeRowGo(x, lo, inv, wh, wl)
			require.Equal(t, wh, gh, "high bytes, k=%d", k)
			require.Equal(t, wl, gl, "low bytes, k=%d", k)
		}
	}
}

// TestProductPathsAgree embeds the reference sentences on every path this
// CPU has (VNNI with fused scaling, AVX2, portable Go): the integer sums
// are equal, only the scaling's float rounding may differ.
func TestProductPathsAgree(t *testing.T) {
	e, err := New(WithWorkers(1))
	require.NoError(t, err)
	var texts []string
	for _, c := range loadReference(t).Cases {
		if c.Text != "" && len(c.Text) < 200 { // short: the Go path is slow
			texts = append(texts, c.Text)
		}
	}
	savedVNNI, savedAVX2 := useVNNI, useAVX2
	defer func() { useVNNI, useAVX2 = savedVNNI, savedAVX2 }()
	want, err := e.Embed(t.Context(), texts)
	require.NoError(t, err)
	for _, path := range []struct {
		name       string
		vnni, avx2 bool
	}{{"avx2", false, savedAVX2}, {"go", false, false}} {
		useVNNI, useAVX2 = path.vnni, path.avx2
		got, err := e.Embed(t.Context(), texts)
		require.NoError(t, err)
		for i := range texts {
			require.Greater(t, cosine(got[i], want[i]), 0.999999, "%s: %.40q", path.name, texts[i])
		}
	}
}

// TestGELUAsmMatchesGo checks the assembly GELU against the Go loop (whose
// exponentials are expf's) on [-8, 8].
func TestGELUAsmMatchesGo(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2")
	}
	x := make([]float32, 0, 1700)
	for v := float32(-8); len(x) < 1600; v += 0.01 {
		x = append(x, v)
	}
	got := append([]float32(nil), x...)
	gelu(got, make([]float32, len(got)))
	useAVX2 = false
	want := append([]float32(nil), x...)
	gelu(want, make([]float32, len(want)))
	useAVX2 = true
	for i := range x {
		require.InDelta(t, want[i], got[i], 1e-6, "gelu(%g)", x[i])
	}
}
