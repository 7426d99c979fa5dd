package vault

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

// canvasCardText is a text card's markdown, the same as a note's text so
// that a rename must give both the same new text.
const canvasCardText = "Go to [[X]], [[X#Part|the part]] and [md](Notes/X.md \"t\"), \"quoted\" é\n\tnext line [[Other]] `[[X]]`"

// A rename or a move of a note rewrites the canvases that point at it as
// it rewrites notes: a file card gets the note's new vault path, a text
// card's links the text a note's links get; every other byte of the
// canvas stays as it was (Obsidian's tab-indented JSON, escapes, cards and
// keys it does not link by), and the canvas is listed in relinked
// (issue 45.3).
func TestRenameRewritesCanvasCards(t *testing.T) {
	enc := func(s string) string {
		b, err := json.Marshal(s)
		require.NoError(t, err)
		return string(b)
	}
	canvas := func(file, text string) string {
		return "{\n\t\"nodes\":[\n" +
			"\t\t{\"id\":\"1\",\"type\":\"file\",\"file\":" + enc(file) + ",\"subpath\":\"#Part\",\"x\":0,\"y\":0,\"width\":1,\"height\":1,\"styleAttributes\":{\"file\":\"Notes/X.md\"}},\n" +
			"\t\t{\"id\":\"2\",\"type\":\"text\",\"text\":" + enc(text) + ",\"x\":0,\"y\":0,\"width\":1,\"height\":1,\"color\":\"1\"},\n" +
			"\t\t{\"id\":\"3\",\"type\":\"link\",\"url\":\"Notes/X.md\",\"x\":0,\"y\":0,\"width\":1,\"height\":1},\n" +
			"\t\t{\"id\":\"4\",\"type\":\"file\",\"file\":\"Other.md\",\"x\":0,\"y\":0,\"width\":1,\"height\":1}\n" +
			"\t],\n\t\"edges\":[{\"id\":\"e\",\"fromNode\":\"1\",\"toNode\":\"2\",\"label\":\"[[X]]\"}]\n}"
	}
	root, w, store := syncedWriter(t, map[string]string{
		"Notes/X.md":          "x",
		"Other.md":            "other",
		"Same.md":             canvasCardText,
		"Boards/Board.canvas": canvas("Notes/X.md", canvasCardText),
	})

	check := func(newPath, newID string) {
		t.Helper()
		text := readVaultFile(t, root, "Same.md")
		require.NotEqual(t, canvasCardText, text, "the note's links followed")
		assert.Equal(t, canvas(newPath, text), readVaultFile(t, root, "Boards/Board.canvas"),
			"the file card has the new path, the text card the note's new text; nothing else changed")
		board := storeNote(t, store, "boards/board.canvas")
		require.NotNil(t, board)
		assert.Equal(t, []string{newID, newID, newID, newID, "other.md", "other.md"}, noteTargets(board))
		assert.Equal(t, "Part", board.Links[0].Heading)
		assert.Nil(t, w.UnresolvedLinks(t.Context(), "boards/board.canvas"))
	}

	report, err := w.Rename(t.Context(), "Notes/X.md", "Notes/Y.md")
	require.NoError(t, err)
	assert.Contains(t, report.Relinked, core.Relinked{ID: "boards/board.canvas", Path: "Boards/Board.canvas", Links: 4})
	check("Notes/Y.md", "notes/y.md")

	report, err = w.Rename(t.Context(), "Notes/Y.md", "Archive/Deep/Y.md")
	require.NoError(t, err)
	assert.Contains(t, report.Relinked, core.Relinked{ID: "boards/board.canvas", Path: "Boards/Board.canvas", Links: 1},
		"a move keeps the name: only the file card, a whole path, changes")
	check("Archive/Deep/Y.md", "archive/deep/y.md")
	assert.Empty(t, tempFiles(t, root))
}

// The journal of a rename keeps a canvas's file cards apart from its
// links, so a rename a crash interrupted rewrites them alike.
func TestJournalKeepsCanvasCards(t *testing.T) {
	p := &fileRewrite{from: "b.canvas", path: "b.canvas", texts: map[linkText]string{
		{card: true, written: "a/X.md"}:     "b/X.md",
		{written: "a/X.md"}:                 "X",
		{markdown: true, written: "a/X.md"}: "b/X.md",
	}}
	raw, err := json.Marshal(journalFiles([]*fileRewrite{p}))
	require.NoError(t, err)
	var files []journalFile
	require.NoError(t, json.Unmarshal(raw, &files))
	require.Len(t, files, 1)
	assert.Equal(t, p.texts, files[0].plan().texts)

	c := `{"nodes":[{"type":"file","file":"a/X.md"},{"type":"text","text":"[[a/X.md]]"}]}`
	out, n := applyRewrite(files[0].plan(), []byte(c))
	assert.Equal(t, 2, n)
	assert.Equal(t, `{"nodes":[{"type":"file","file":"b/X.md"},{"type":"text","text":"[[X]]"}]}`, string(out))
	_, n = applyRewrite(files[0].plan(), []byte("not json"))
	assert.Zero(t, n, "a canvas that is not JSON is left as it is")

	// Cards that are not objects, nested values naming the path, keys
	// repeated: only a card's own "file" (the last one) changes.
	odd := "{\"meta\":{\"nodes\":[{\"type\":\"file\",\"file\":\"a/X.md\"}]},\"nodes\":[1, \"x\", null, [], {\"type\" : \"file\", \"file\":\"old\", \"file\" :\t\"a/X.md\", \"more\":[{\"file\":\"a/X.md\"}]}]}"
	out, n = applyRewrite(files[0].plan(), []byte(odd))
	assert.Equal(t, 1, n)
	assert.Equal(t, strings.Replace(odd, "\"file\" :\t\"a/X.md\"", "\"file\" :\t\"b/X.md\"", 1), string(out))
	for _, bad := range []string{"", "[]", "{", `{"nodes":[{"type":"file","file":"a/X.md"`, `{"nodes":[{"type":"file","file":"a/X.md"}]`, `{"nodes":[{"type":"file","file":"a/X.md"}]} {}`} {
		out, n = applyRewrite(files[0].plan(), []byte(bad))
		assert.Zero(t, n, bad)
		assert.Equal(t, bad, string(out))
	}
}

// A canvas restored from the store (its links' texts not kept) is read
// back from its file for a rename: its file card is still told apart from
// a markdown link, and rewritten.
func TestRenameRewritesRestoredCanvas(t *testing.T) {
	c := `{"nodes":[{"id":"1","type":"file","file":"a/X.md"},{"id":"2","type":"text","text":"[x](a/X.md) [[X]]"}]}`
	root, m := restarted(t, map[string]string{"a/X.md": "x", "B.canvas": c},
		func(s core.GraphStore) core.GraphStore { return s })
	report, err := m.Writer().Rename(t.Context(), "a/X.md", "b/Y.md")
	require.NoError(t, err)
	assert.Equal(t, []core.Relinked{{ID: "b.canvas", Path: "B.canvas", Links: 3}}, report.Relinked)
	assert.Equal(t, `{"nodes":[{"id":"1","type":"file","file":"b/Y.md"},{"id":"2","type":"text","text":"[x](Y.md) [[Y]]"}]}`,
		readVaultFile(t, root, "B.canvas"))
}
