package embedding

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

func TestNewChoosesProvider(t *testing.T) {
	e, err := New(ProviderNone, "", "", "")
	require.NoError(t, err)
	assert.Nil(t, e, "none means no embedder")

	for _, name := range []string{"", ProviderBuiltin} {
		e, err := New(name, "", "", "")
		require.NoError(t, err)
		assert.Equal(t, ProviderBuiltin, e.Name())
		assert.Equal(t, 384, e.Dimension(), "the transformer by default")
		fast, err := NewFast(name, "")
		require.NoError(t, err)
		assert.Equal(t, 384, fast.Dimension(), "the static table, padded")
		assert.NotEqual(t, e.Model(), fast.Model())
	}
	e, err = New(ProviderBuiltin, "", BuiltinStatic, "")
	require.NoError(t, err)
	assert.Equal(t, 256, e.Dimension())
	for _, tc := range []struct{ provider, model string }{{ProviderBuiltin, BuiltinStatic}, {ProviderOllama, ""}, {ProviderOpenAI, ""}} {
		fast, err := NewFast(tc.provider, tc.model)
		require.NoError(t, err)
		assert.Nil(t, fast, "%s %s has one tier", tc.provider, tc.model)
	}

	e, err = New(ProviderOllama, "", "", "")
	require.NoError(t, err)
	assert.Equal(t, DefaultOllamaModel, e.Model())
	assert.Equal(t, DefaultOllamaURL+"/api/embed", e.(*remote).endpoint)

	e, err = New(ProviderOpenAI, "", "", "key")
	require.NoError(t, err)
	assert.Equal(t, DefaultOpenAIModel, e.Model())
	assert.Equal(t, DefaultOpenAIURL+"/v1/embeddings", e.(*remote).endpoint)
}

func TestNewRejectsBadSettings(t *testing.T) {
	for name, call := range map[string]func() (core.Embedder, error){
		"unknown provider":   func() (core.Embedder, error) { return New("bert", "", "", "") },
		"builtin with model": func() (core.Embedder, error) { return New(ProviderBuiltin, "", "other", "") },
		"builtin with url":   func() (core.Embedder, error) { return New(ProviderBuiltin, "http://x", "", "") },
		"not a url":          func() (core.Embedder, error) { return New(ProviderOllama, "localhost:11434", "", "") },
		"zero batch":         func() (core.Embedder, error) { return New(ProviderOllama, "", "", "", WithBatchSize(0)) },
		"zero attempts":      func() (core.Embedder, error) { return New(ProviderOpenAI, "", "", "", WithMaxAttempts(0)) },
	} {
		e, err := call()
		assert.ErrorIs(t, err, core.ErrInvalidArgument, name)
		assert.True(t, e == nil, "%s: a failed New returns a nil interface, not a nil pointer in one", name)
	}
}

func TestProbeDimensionAsksOnlyWhenUnknown(t *testing.T) {
	f := &fakeServer{dim: 6}
	e, _ := start(t, providers[1], f)
	d, err := ProbeDimension(t.Context(), e)
	require.NoError(t, err)
	assert.Equal(t, 6, d)
	d, err = ProbeDimension(t.Context(), e)
	require.NoError(t, err)
	assert.Equal(t, 6, d)
	assert.Equal(t, 1, f.requests())
}

func TestFastTierPadsAndCalibrates(t *testing.T) {
	fast, err := NewFast(ProviderBuiltin, "")
	require.NoError(t, err)
	static, err := New(ProviderBuiltin, "", BuiltinStatic, "")
	require.NoError(t, err)
	texts := []string{"splitting long documents into pieces", ""}
	got, err := fast.Embed(t.Context(), texts)
	require.NoError(t, err)
	want, err := static.Embed(t.Context(), texts)
	require.NoError(t, err)
	for i := range texts {
		require.Len(t, got[i], 384)
		assert.Equal(t, want[i], got[i][:256])
		assert.Equal(t, make([]float32, 128), got[i][256:])
	}
	c := fast.(interface{ Calibrate(float64) float64 })
	prev := -2.0
	for x := -1.0; x <= 1; x += 0.01 {
		y := c.Calibrate(x)
		assert.GreaterOrEqual(t, y, prev, "monotone at %g", x)
		assert.True(t, y >= -1 && y <= 1)
		prev = y
	}
	assert.Equal(t, 1.0, c.Calibrate(1))
}
