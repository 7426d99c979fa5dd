package neo4jstore

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/core/storetest"
)

// A head's content gives the same truncation as the whole content at every
// limit a view uses, in any script and with invalid bytes.
func TestContentHeadTruncatesLikeTheWholeContent(t *testing.T) {
	t.Parallel()
	n := core.ContextContentChars
	for _, s := range []string{
		"", "short", strings.Repeat("a", n), strings.Repeat("a", n+1), strings.Repeat("a", n+2),
		strings.Repeat("é", n) + "ab", strings.Repeat("🙂", n+5), strings.Repeat("\xff", n+3), strings.Repeat("x", n-1) + "\xe2\x80",
	} {
		head := contentHead(s)
		assert.LessOrEqual(t, utf8.RuneCountInString(head), n+1)
		for _, limit := range []int{0, 1, core.NeighborContentLimit, n - 1, n} {
			assert.Equal(t, core.TruncateContent(s, limit), core.TruncateContent(head, limit), "%.20q… at %d", s, limit)
		}
	}
}

// decodeHead reads a head, and a doc where a note has no head, and finds
// a torn pair as decodeNote does.
func TestDecodeHeadReadsHeadsAndDocs(t *testing.T) {
	t.Parallel()
	note := core.Note{ID: "a.md", Title: "A", Content: strings.Repeat("c", 2000), Tags: []string{"T"},
		Links: []core.Link{{Raw: "[[b]]", Key: "b", Target: "b.md"}, {Raw: "[[x]]", Key: "x"}, {Raw: "[[b|B]]", Key: "b", Target: "b.md"}}}
	row, err := noteRow(&note, "7", []string{"b.md", "", "b.md"})
	require.NoError(t, err)
	docColumn := []any{row["doc"], row["content"]} // as the statements read a doc
	for col, v := range map[string]any{"head": row["head"], "doc": docColumn} {
		got, err := decodeHead("p", "a.md", v, anys(row["targets"].([]string)))
		require.NoError(t, err, col)
		assert.NoError(t, storetest.CompareViewFields(note, got), col)
		assert.Equal(t, []string{"b.md"}, got.LinkTargets(), col)
	}
	_, err = decodeHead("p", "a.md", row["head"], []any{"8", "b.md", "", "b.md"})
	assert.True(t, errors.Is(err, errTorn), "another revision: %v", err)
	_, err = decodeHead("p", "a.md", []any{row["doc"], "other text"}, anys(row["targets"].([]string)))
	assert.True(t, errors.Is(err, errTorn), "the content of another write: %v", err)
	_, err = decodeHead("p", "a.md", nil, []any{"7"})
	assert.True(t, errors.Is(err, errVanished), "no head: %v", err)
}

func anys(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// A neighbour whose head is missing (written before heads) or of an older
// revision (written by an older vaultgraph, which rewrites doc only) is read
// from its doc.
func TestNoteContextReadsNeighboursWithoutCurrentHeadsFromTheirDocs(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	ctx := t.Context()
	project := fmt.Sprintf("heads-%d", rand.Uint64())
	hub := core.Note{ID: "hub.md", Title: "Hub", Hash: "h"}
	a := core.Note{ID: "a.md", Title: "A", Content: "first", Links: []core.Link{{Raw: "[[hub]]", Key: "hub", Target: "hub.md"}}, Hash: "a1"}
	b := core.Note{ID: "b.md", Title: "B", Content: "bee", Links: []core.Link{{Raw: "[[hub]]", Key: "hub", Target: "hub.md"}}, Hash: "b1"}
	require.NoError(t, s.UpsertNotes(ctx, project, []core.Note{hub, a, b}))
	run := func(q string) {
		t.Helper()
		_, err := neo4j.ExecuteQuery(ctx, s.driver(), q, map[string]any{"project": project}, neo4j.EagerResultTransformer,
			neo4j.ExecuteQueryWithDatabase(s.cfg.Database))
		require.NoError(t, err)
	}
	// a loses its head; b's head stays at the revision before a rewrite.
	run("MATCH (n:Note {project: $project, id: 'a.md'}) REMOVE n.head")
	run("MATCH (n:Note {project: $project, id: 'b.md'}) SET n.oldHead = n.head")
	b.Content, b.Title, b.Hash = "changed", "B2", "b2"
	require.NoError(t, s.UpsertNotes(ctx, project, []core.Note{b}))
	run("MATCH (n:Note {project: $project, id: 'b.md'}) SET n.head = n.oldHead")

	nc, err := s.NoteContext(ctx, project, "hub.md", core.ContextQuery{Direction: core.DirectionIn})
	require.NoError(t, err)
	require.Len(t, nc.Neighbors, 2)
	assert.NoError(t, storetest.CompareView(a, map[string]string{"hub.md": "Hub"}, nc.Neighbors[0].NodeView))
	assert.NoError(t, storetest.CompareView(b, map[string]string{"hub.md": "Hub"}, nc.Neighbors[1].NodeView))
}
