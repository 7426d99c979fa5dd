package vault

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// fileNodeVault uses every form that links or embeds a file that is not a
// note, and a canvas with file, text, link and group cards (JSON Canvas
// 1.0), beside notes.
var fileNodeVault = map[string]string{
	"img/pic.png":   "\x89PNG fake",
	"docs/Spec.pdf": "%PDF-1.7 fake",
	"Sub/Note.md":   "![[pic.png]] [[Spec.pdf#page=2|the spec]] ![](../img/pic.png) [m](<../docs/Spec.pdf>) [[Nowhere]] [[gone.png]] [[Nowhere]]",
	"Other.md":      "![[img/pic.png]] [[Board.canvas]] [z](Sub/Note.md)",
	"Plain.md":      "no links",
	"notes.txt":     "a text file",
	"Boards/Board.canvas": `{"nodes":[
		{"id":"1","type":"file","file":"Sub/Note.md","subpath":"#Part","x":0,"y":0,"width":1,"height":1},
		{"id":"2","type":"file","file":"img/pic.png","x":0,"y":0,"width":1,"height":1},
		{"id":"3","type":"text","text":"See [[Plain]] and [o](/Other.md), not ` + "`[[Code]]`" + ` nor [[Missing Card]]","x":0,"y":0,"width":1,"height":1},
		{"id":"4","type":"link","url":"https://example.org/x.md","x":0,"y":0,"width":1,"height":1},
		{"id":"5","type":"group","label":"[[Not a link]]","x":0,"y":0,"width":1,"height":1}],
		"edges":[{"id":"e","fromNode":"1","toNode":"2"}]}`,
	"Broken.canvas": "not json",
}

// Attachments and canvases are nodes: their kind follows from the ID,
// every link form resolves to them, a canvas's file and text cards link,
// writes to them are refused with a message that says what to do, and a
// note's unresolved links are listed as written (issue 45.2).
func TestAttachmentsAndCanvasesAreNodes(t *testing.T) {
	root := writeVault(t, fileNodeVault)
	store := memstore.New()
	m := newTestMirror(t, root, store)
	_, err := m.Sync(t.Context())
	require.NoError(t, err)
	notes := map[string]core.Note{}
	for _, n := range allNotes(t, store) {
		notes[n.ID] = n
	}

	pic, ok := notes["img/pic.png"]
	require.True(t, ok, "the image is a node")
	assert.Equal(t, core.KindAttachment, core.KindOf(pic.ID))
	assert.Equal(t, "image/png", core.MIMETypeOf(pic.ID))
	assert.Equal(t, "pic.png", pic.Title)
	assert.Empty(t, pic.Content)
	assert.Empty(t, pic.Links)
	assert.Equal(t, core.KindAttachment, core.KindOf("docs/spec.pdf"))
	assert.Contains(t, notes, "notes.txt")
	assert.NotContains(t, notes, "img/pic.png.md")

	assert.Equal(t, []string{"img/pic.png", "docs/spec.pdf", "img/pic.png", "docs/spec.pdf", "", "", ""}, targets(t, notes, "sub/note.md"),
		"wikilink and embed by name, markdown embed by relative path, markdown link in angle brackets; missing note and image unresolved")
	assert.Equal(t, []string{"img/pic.png", "boards/board.canvas", "sub/note.md"}, targets(t, notes, "other.md"))

	board := notes["boards/board.canvas"]
	assert.Equal(t, core.KindCanvas, core.KindOf(board.ID))
	assert.Equal(t, "Board.canvas", board.Title)
	assert.Equal(t, []string{"sub/note.md", "img/pic.png", "plain.md", "other.md", ""}, targets(t, notes, "boards/board.canvas"),
		"file cards by vault path, the text card's links; none in code, a link card or a group's label")
	assert.Equal(t, "Part", board.Links[0].Heading)
	assert.True(t, board.Links[0].Embed)
	assert.Contains(t, board.Content, "See [[Plain]]")
	assert.Empty(t, notes["broken.canvas"].Links, "a canvas that is not JSON is a node without links")

	in, err := store.Neighbors(t.Context(), testProject, "img/pic.png", core.DirectionIn, 10)
	require.NoError(t, err)
	var linkers []string
	for _, n := range in {
		linkers = append(linkers, n.Note.ID)
	}
	slices.Sort(linkers)
	assert.Equal(t, []string{"boards/board.canvas", "other.md", "sub/note.md"}, linkers, "which notes embed this image")

	w := m.Writer()
	assert.Equal(t, []string{"Nowhere", "gone.png"}, w.UnresolvedLinks(t.Context(), "sub/note.md"))
	assert.Equal(t, []string{"Missing Card"}, w.UnresolvedLinks(t.Context(), "boards/board.canvas"))
	assert.Nil(t, w.UnresolvedLinks(t.Context(), "plain.md"))

	// Writes through the tools' paths refuse a file node, saying why and
	// what to do; nothing is written.
	content := "x"
	_, _, err = w.Update(t.Context(), "img/pic.png", core.NoteUpdate{Content: &content})
	requireNotNote(t, err)
	_, err = w.Delete(t.Context(), "boards/board.canvas")
	requireNotNote(t, err)
	_, _, _, err = w.EditNote(t.Context(), "img/pic.png", func(string, []byte) ([]byte, error) { return []byte("x"), nil })
	requireNotNote(t, err)
	_, err = w.Rename(t.Context(), "img/pic.png", "img/other.png")
	require.ErrorIs(t, err, core.ErrInvalidPath, "moving an attachment is refused: it is not a note")
	raw, err := os.ReadFile(filepath.Join(root, "img/pic.png"))
	require.NoError(t, err)
	assert.Equal(t, fileNodeVault["img/pic.png"], string(raw))
	_, err = os.Stat(filepath.Join(root, "Boards/Board.canvas"))
	require.NoError(t, err)

	// A rename of a note rewrites the canvas's text card that links it,
	// and nothing else of the canvas (TestRenameRewritesCanvasCards).
	_, err = w.Rename(t.Context(), "Plain.md", "Plainer.md")
	require.NoError(t, err)
	canvas, err := os.ReadFile(filepath.Join(root, "Boards/Board.canvas"))
	require.NoError(t, err)
	assert.Equal(t, strings.Replace(fileNodeVault["Boards/Board.canvas"], "See [[Plain]]", "See [[Plainer]]", 1), string(canvas))
}

func requireNotNote(t *testing.T, err error) {
	t.Helper()
	require.Error(t, err)
	assert.True(t, errors.Is(err, core.ErrInvalidArgument), "%v", err)
	assert.Contains(t, err.Error(), "not a markdown note")
	assert.Contains(t, err.Error(), "change the file in the vault itself")
}

// An attachment changed, added or deleted outside is seen by the watcher:
// the node follows the file and the links to it resolve or break.
func TestLiveAttachments(t *testing.T) {
	root, _, store := liveVault(t, map[string]string{"a.md": "![[pic.png]]"})
	eventually(t, "a.md's embed is unresolved", linksTo(t, store, "a.md", ""))
	writeFile(t, root, "img/pic.png", "one")
	eventually(t, "the new image is a node", hasNote(t, store, "img/pic.png"))
	eventually(t, "a.md embeds it", linksTo(t, store, "a.md", "img/pic.png"))
	before := storeNote(t, store, "img/pic.png").Hash
	writeFile(t, root, "img/pic.png", "a longer image")
	eventually(t, "the change is seen", func() bool {
		n := storeNote(t, store, "img/pic.png")
		return n != nil && n.Hash != before && n.Size == int64(len("a longer image"))
	})
	require.NoError(t, os.Remove(filepath.Join(root, "img/pic.png")))
	eventually(t, "the image's node is gone", noNote(t, store, "img/pic.png"))
	eventually(t, "a.md's embed is unresolved again", linksTo(t, store, "a.md", ""))
}
