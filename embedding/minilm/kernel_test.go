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

// TestAttentionKernelsMatchGo checks the attention tile and the softmax
// (assembly where the CPU has AVX2) against the portable ones.
func TestAttentionKernelsMatchGo(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, k := range []int{1, 3, 32, 257} {
		lda, ldb, ldc := k+r.IntN(5), 16+r.IntN(40), 16+r.IntN(7)
		a := make([]float32, 3*lda+k)
		b := make([]float32, (k-1)*ldb+16)
		for i := range a {
			a[i] = float32(r.NormFloat64())
		}
		for i := range b {
			b[i] = float32(r.NormFloat64())
		}
		got, want := make([]float32, 3*ldc+16), make([]float32, 3*ldc+16)
		gemm4x16(a, lda, b, ldb, k, got, ldc)
		gemm4x16Go(a, lda, b, ldb, k, want, ldc)
		for i := range got {
			require.InDelta(t, want[i], got[i], 1e-5*float64(k), "gemm k=%d i=%d", k, i)
		}
	}
	for _, n := range []int{8, 16, 256} {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(r.NormFloat64() * 10)
		}
		x[n-1] = -1e30 // a padding column
		got, want := append([]float32(nil), x...), append([]float32(nil), x...)
		softmax(got, 0.17677669)
		softmaxGo(want, 0.17677669)
		for i := range got {
			require.InDelta(t, want[i], got[i], 1e-6, "softmax n=%d i=%d", n, i)
		}
		require.Less(t, got[n-1], float32(1e-30))
	}
}

// TestAttentionMatchesTiles compares the attention of 4-row blocks
// (gemm4x16, the default) with the tiles it replaced (attentionTiles): the
// same sums in another order, so the vectors must be equal to cosine
// 0.99999 (the model id holds). The short reference sentences in CI (the
// long blocks are TestAttentionKernelsMatchGo's, on random inputs); the
// whole parity set (parityTexts, notes of 256 tokens) with VAULTGRAPH_SOAK=1.
func TestAttentionMatchesTiles(t *testing.T) {
	e, err := New(WithWorkers(1))
	require.NoError(t, err)
	var texts []string
	if os.Getenv("VAULTGRAPH_SOAK") != "" {
		texts = parityTexts(t)
	} else {
		for _, c := range loadReference(t).Cases {
			if len(c.Text) < 200 { // short: the reference's Go loops are slow under -race
				texts = append(texts, c.Text)
			}
		}
	}
	got, err := e.Embed(t.Context(), texts)
	require.NoError(t, err)
	referenceAttention = true
	want, err := e.Embed(t.Context(), texts)
	referenceAttention = false
	require.NoError(t, err)
	worst := 1.0
	for i := range texts {
		if c := cosine(got[i], want[i]); !math.IsNaN(c) && c < worst {
			worst = c
		}
	}
	t.Logf("%d texts: least cosine to the tiles' attention %.7f", len(texts), worst)
	require.GreaterOrEqual(t, worst, 0.99999)
}

// TestPackedVNNIMatchesTiles checks the packed VNNI product (qgemm, the
// default where the CPU has VNNI) against the tiles it replaced
// (dotsQOut): the same integer sums and the same scaling operations, so
// the outputs must be equal to the bit.
func TestPackedVNNIMatchesTiles(t *testing.T) {
	if !useVNNI {
		t.Skip("no AVX-512 VNNI on this CPU")
	}
	r := rand.New(rand.NewPCG(9, 10))
	for _, k := range []int{384, 1536} {
		q := qmat{rows: 64, cols: k, data: make([]int8, 64*k), scale: make([]float32, 64)}
		for i := range q.data {
			q.data[i] = int8(r.IntN(255) - 127)
		}
		bias := make([]float32, 64)
		for i := range q.scale {
			q.scale[i], bias[i] = float32(r.Float64()/100), float32(r.NormFloat64())
		}
		q.rowSums()
		q.packQGEMM()
		require.NotNil(t, q.packed)
		x := make([]uint8, 8*k)
		for i := range x {
			x[i] = uint8(r.IntN(256))
		}
		x[0], x[k] = 255, 255
		xs, xl := make([]float32, 4), make([]float32, 4)
		for i := range xs {
			xs[i], xl[i] = float32(r.Float64()/50), float32(-r.Float64())
		}
		const ldo = 70
		got, want := make([]float32, 4*ldo), make([]float32, 4*ldo)
		for j := 0; j < 64; j += 32 {
			qgemm(x, k, q.packed[j*k:], got[j:], ldo, xs, xl, q.scale[j:], q.fsum[j:], bias[j:])
			for p := range 2 {
				require.True(t, dotsQOut(x[4*p*k:], k, q.data[j*k:], k, k, want[2*p*ldo+j:], ldo, xs[2*p:], xl[2*p:], q.scale[j:], q.fsum[j:], bias[j:], 8))
			}
		}
		require.Equal(t, want, got, "k=%d", k)
	}
}
