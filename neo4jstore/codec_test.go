package neo4jstore

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/core/storetest"
)

// listValue turns a row's string list into what the driver hands back.
func listValue(row map[string]any, key string) []any {
	list := row[key].([]string)
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}

func TestNoteRowRoundTripsThroughDoc(t *testing.T) {
	n := core.Note{
		ID: "a.md", Title: "A", Path: "A.md", Content: "body", Tags: []string{"X", "#y", "x"}, Hash: "h",
		ModTime: time.Date(2024, 1, 2, 3, 4, 5, 678_901_234, time.FixedZone("X", -7200)),
		Links: []core.Link{
			{Raw: "[[b|B]]", Key: "b", Target: "b.md", Alias: "B"},
			{Raw: "![[c#^x]]", Key: "c", Heading: "^x", Embed: true},
			{Raw: "[[b]]", Key: "b", Target: "b.md"},
		},
		Frontmatter: map[string]any{"n": 3, "big": int64(1) << 62, "f": 0.5, "list": []any{1, "a"}, "deep": map[string]any{"k": nil}},
		Keys:        []string{"a"},
	}
	targets := []string{"b.md", "", "b.md"}
	row, err := noteRow(&n, "7", targets)
	require.NoError(t, err)
	assert.Equal(t, []string{"b.md"}, row["found"], "distinct resolved targets")
	assert.Equal(t, []string{"c"}, row["dangling"], "distinct unresolved keys")
	assert.Equal(t, []string{"x", "y"}, row["tagsNorm"], "normalised, distinct")
	assert.Equal(t, []string{"b", "c", "b"}, row["linkKeys"])

	assert.Equal(t, []string{"7", "b.md", "", "b.md"}, row["targets"], "revision, then one target per link")
	assert.NotContains(t, row["doc"], "body", "the content is stored once, in its own property")
	got, err := decodeNote("p", "a.md", []any{row["doc"], row["content"]}, listValue(row, "targets"))
	require.NoError(t, err)
	n.Project = "p"
	n.Links[1].Target = "" // as resolved
	require.NoError(t, storetest.CompareNotes(n, got))
	assert.Equal(t, int64(1)<<62, got.Frontmatter["big"], "whole numbers come back exact")
	assert.Equal(t, 0.5, got.Frontmatter["f"])
	assert.True(t, got.ModTime.Equal(n.ModTime), "nanoseconds and instant survive")
}

func TestDecodeNoteDetectsDeletedAndTornNotes(t *testing.T) {
	_, err := decodeNote("p", "a.md", nil, nil)
	require.ErrorIs(t, err, errVanished, "a note deleted under the reader")
	doc := `{"rev":"8","links":[{"key":"b"}]}`
	_, err = decodeNote("p", "a.md", doc, []any{"7", "b.md"})
	require.ErrorIs(t, err, errTorn, "doc of revision 8, targets of revision 7")
	_, err = decodeNote("p", "a.md", doc, []any{"8"})
	require.ErrorIs(t, err, errTorn, "a link without its target")
	n, err := decodeNote("p", "a.md", doc, []any{"8", "b.md"})
	require.NoError(t, err)
	require.Equal(t, "b.md", n.Links[0].Target)

	// The content property of another write than doc's.
	row, err := noteRow(&core.Note{ID: "a.md", Content: "new text"}, "9", nil)
	require.NoError(t, err)
	_, err = decodeNote("p", "a.md", []any{row["doc"], "old text"}, []any{"9"})
	require.ErrorIs(t, err, errTorn, "content of another write")
	_, err = decodeNote("p", "a.md", []any{row["doc"], nil}, []any{"9"})
	require.ErrorIs(t, err, errTorn, "content missing")
	n, err = decodeNote("p", "a.md", []any{row["doc"], "new text"}, []any{"9"})
	require.NoError(t, err)
	require.Equal(t, "new text", n.Content)

	// A note written before issue 44 holds its content in doc.
	n, err = decodeNote("p", "a.md", []any{`{"rev":"3","content":"old form"}`, "old form"}, []any{"3"})
	require.NoError(t, err)
	require.Equal(t, "old form", n.Content)
}

func TestResolveTargets(t *testing.T) {
	links := []core.Link{
		{Key: "b", Target: "b.md"},    // exists
		{Key: "c", Target: "gone.md"}, // missing target, key claimed in the batch
		{Key: "d"},                    // unresolved, key claimed
		{Key: "e"},                    // unresolved, unclaimed
		{Key: "c", Target: "b.md"},    // resolved links keep their target whatever claims the key
	}
	exists := func(id string) bool { return id == "b.md" }
	got := resolveTargets(links, exists, map[string]string{"c": "c.md", "d": "d.md"})
	require.Equal(t, []string{"b.md", "c.md", "d.md", "", "b.md"}, got)
}

func TestLastByIDAndDistinct(t *testing.T) {
	notes := lastByID([]core.Note{{ID: "a", Title: "1"}, {ID: "b"}, {ID: "a", Title: "2"}})
	require.Len(t, notes, 2)
	require.Equal(t, "2", notes[0].Title)
	require.True(t, slices.Equal([]string{"x", "y"}, distinct([]string{"x", "y", "x"})))
}
