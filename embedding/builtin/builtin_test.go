package builtin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

var _ core.Embedder = (*Embedder)(nil)

func newEmbedder(t testing.TB) *Embedder {
	t.Helper()
	e, err := New()
	require.NoError(t, err)
	return e
}

func TestManifestMatchesShippedModel(t *testing.T) {
	var m struct {
		ID     string `json:"id"`
		SHA256 string `json:"model_sha256"`
	}
	require.NoError(t, json.Unmarshal(manifestJSON, &m))
	sum := sha256.Sum256(modelBin)
	assert.Equal(t, m.SHA256, hex.EncodeToString(sum[:]), "model.bin changed without rerunning distill.py")
	assert.True(t, strings.HasSuffix(m.ID, ":"+m.SHA256[:12]), "model id %q must carry the digest", m.ID)

	e := newEmbedder(t)
	assert.Equal(t, "builtin", e.Name())
	assert.Equal(t, m.ID, e.Model())
	assert.Equal(t, 256, e.Dimension())
}

// The vectors were computed by scripts/embedding/distill.py from the same
// table with the Hugging Face tokenizer: Go must give the same numbers.
func TestEmbedMatchesPythonReference(t *testing.T) {
	raw, err := os.ReadFile("../testdata/embedding_parity.json")
	require.NoError(t, err)
	var fixture struct {
		Cases []struct {
			Text   string    `json:"text"`
			Vector []float64 `json:"vector"`
		}
	}
	require.NoError(t, json.Unmarshal(raw, &fixture))
	require.NotEmpty(t, fixture.Cases)
	e := newEmbedder(t)
	texts := make([]string, len(fixture.Cases))
	for i, c := range fixture.Cases {
		texts[i] = c.Text
	}
	got, err := e.Embed(t.Context(), texts)
	require.NoError(t, err)
	require.Len(t, got, len(texts))
	for i, c := range fixture.Cases {
		require.Len(t, got[i], len(c.Vector), "%q", c.Text)
		for d := range c.Vector {
			if math.Abs(float64(got[i][d])-c.Vector[d]) > 1e-5 {
				t.Fatalf("%q dim %d: got %v want %v", c.Text, d, got[i][d], c.Vector[d])
			}
		}
	}
}

func TestEmbedNormalisesAndKeepsOrder(t *testing.T) {
	e := newEmbedder(t)
	texts := []string{"a cat sat on the mat", "", "🙂🙂", "quantum chromodynamics"}
	vecs, err := e.Embed(t.Context(), texts)
	require.NoError(t, err)
	require.Len(t, vecs, 4)
	assert.InDelta(t, 1, norm(vecs[0]), 1e-5)
	assert.InDelta(t, 1, norm(vecs[3]), 1e-5)
	assert.Zero(t, norm(vecs[1]), "empty text gives a zero vector")
	assert.Zero(t, norm(vecs[2]), "only unknown tokens give a zero vector")

	alone, err := e.Embed(t.Context(), []string{"quantum chromodynamics"})
	require.NoError(t, err)
	assert.Equal(t, alone[0], vecs[3], "a text's vector does not depend on its batch")
}

func TestEmbedCapturesMeaningBeyondSharedWords(t *testing.T) {
	e := newEmbedder(t)
	vecs, err := e.Embed(t.Context(), []string{
		"How do I fix my car's engine when it won't start?",
		"The automobile motor fails to turn over in the morning.",
		"A recipe for chocolate cake with buttercream frosting.",
	})
	require.NoError(t, err)
	related, unrelated := dot(vecs[0], vecs[1]), dot(vecs[0], vecs[2])
	assert.Greater(t, related, unrelated+0.1, "paraphrase %.3f must beat unrelated %.3f", related, unrelated)
}

func TestEmbedStopsOnCancelledContext(t *testing.T) {
	e := newEmbedder(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := e.Embed(ctx, []string{"x"})
	assert.ErrorIs(t, err, context.Canceled)
}

func TestDecodeModelRejectsDamagedFiles(t *testing.T) {
	_, err := decodeModel([]byte("nope"))
	assert.Error(t, err)
	_, err = decodeModel(modelBin[:len(modelBin)-1])
	assert.Error(t, err, "truncated table")
	bad := append([]byte(nil), modelBin[:headerSize]...)
	bad[4] = 9
	_, err = decodeModel(bad)
	assert.ErrorContains(t, err, "format 9")
}

func TestEmbedIsSafeForConcurrentUse(t *testing.T) {
	e := newEmbedder(t)
	want, err := e.Embed(t.Context(), []string{"concurrent embedding of the same note"})
	require.NoError(t, err)
	done := make(chan []float32, 8)
	for range 8 {
		go func() {
			got, err := e.Embed(context.Background(), []string{"concurrent embedding of the same note"})
			if err != nil {
				done <- nil
				return
			}
			done <- got[0]
		}()
	}
	for range 8 {
		assert.Equal(t, want[0], <-done)
	}
}

func norm(v []float32) float64 {
	return math.Sqrt(dot(v, v))
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}
