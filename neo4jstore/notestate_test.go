package neo4jstore

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

func TestDecodeState(t *testing.T) {
	n := core.Note{ID: "a.md", Path: "A.md", Hash: "h", Size: 42, ModTime: time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC),
		Content: "long text", Links: []core.Link{{Raw: "[[b]]", Key: "b", Alias: "x"}, {Raw: "[[c]]", Key: "c"}}}
	row, err := noteRow(&n, "7", []string{"b.md", ""})
	require.NoError(t, err)

	st, err := decodeState("a.md", "h", row["state"], asDriver(row["targets"]))
	require.NoError(t, err)
	assert.Equal(t, core.NoteState{ID: "a.md", Path: "A.md", Hash: "h", Size: 42, ModTime: n.ModTime,
		Links: []core.Link{{Raw: "[[b]]", Key: "b", Target: "b.md"}, {Raw: "[[c]]", Key: "c"}}}, st)
	assert.NotContains(t, row["state"], "long text", "the state leaves the content out")

	t.Run("a note written before states is read from its doc, size unknown", func(t *testing.T) {
		n := n
		n.Size = 0 // the doc of an older version had no size
		row, err := noteRow(&n, "7", []string{"b.md", ""})
		require.NoError(t, err)
		st, err := decodeState("a.md", "h", row["doc"], asDriver(row["targets"]))
		require.NoError(t, err)
		assert.Equal(t, int64(-1), st.Size)
		assert.False(t, st.Known())
		assert.Equal(t, "b.md", st.Links[0].Target)
	})
	t.Run("state and targets of different writes are torn", func(t *testing.T) {
		_, err := decodeState("a.md", "h", row["state"], []any{"8", "b.md", ""})
		require.ErrorIs(t, err, errTorn)
	})
}

// asDriver is a list property as the driver returns it.
func asDriver(v any) []any {
	var out []any
	for _, s := range v.([]string) {
		out = append(out, s)
	}
	return out
}
