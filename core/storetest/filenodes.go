package storetest

import (
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
)

// Attachments and canvases are nodes (issue 45.2) that a store takes as it
// takes notes: their kind follows from the ID's extension (core.KindOf),
// their keys keep it ("img/pic.png", "pic.png"), they have no content (an
// attachment) or the text of their cards (a canvas), and notes link them.

// fileNode is the node of a file of the vault that is not a note.
func fileNode(id string, links ...core.Link) core.Note {
	n := mkNote(id, links...)
	n.Title = id[lastSlash(id)+1:]
	n.Content = ""
	n.Keys = []string{id}
	if i := lastSlash(id); i >= 0 {
		n.Keys = append(n.Keys, id[i+1:])
	}
	return n
}

func lastSlash(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}

// fileLink is a resolved embed of the file node id by its file name.
func fileLink(id string) core.Link {
	name := id[lastSlash(id)+1:]
	return core.Link{Raw: "![[" + name + "]]", Key: name, Target: id, Embed: true}
}

var fileNodeCases = []testCase{
	{"an attachment and a canvas are nodes that notes link", func(e *env) {
		p := e.project()
		board := fileNode("boards/board.canvas", linkTo("a.md"), fileLink("img/pic.png"))
		board.Content = "a text card"
		e.upsert(p,
			fileNode("img/pic.png"), board,
			mkNote("a.md", fileLink("img/pic.png"), fileLink("boards/board.canvas")),
			mkNote("b.md", fileLink("img/pic.png")),
		)
		e.sameNote(p, fileNode("img/pic.png"), e.get(p, "img/pic.png"))
		e.sameNote(p, board, e.get(p, "boards/board.canvas"))
		assert.Equal(e.t, core.KindAttachment, core.KindOf("img/pic.png"))
		assert.Equal(e.t, core.KindCanvas, core.KindOf("boards/board.canvas"))
		assert.Equal(e.t, []string{"in:a.md", "in:b.md", "in:boards/board.canvas"}, e.neighbors(p, "img/pic.png", core.DirectionIn, 0),
			"which notes embed this image")
		assert.Equal(e.t, []string{"out:a.md", "out:img/pic.png"}, e.neighbors(p, "boards/board.canvas", core.DirectionBoth, 0), "a.md links back: listed once, as outgoing")
		assert.Equal(e.t, core.Degree{In: 3, Out: 0}, e.degree(p, "img/pic.png"))
		assert.Equal(e.t, 4, e.count(p))
	}},
	{"a random note is a note: never an attachment or a canvas", func(e *env) {
		p := e.project()
		tagged := fileNode("b.canvas") // the vault gives no file node tags; a store still never picks one
		tagged.Tags = []string{"go"}
		e.upsert(p, fileNode("a.png"), tagged, mkNote("c.md"), fileNode("d/e.pdf"), mkNote("f.md"), fileNode("g.canvas"))
		e.upsert(p, withTags(mkNote("h.md"), "go"))
		for _, tags := range [][]string{nil, {"go"}} {
			var picked []string
			for k := 0; ; k++ {
				n, err := e.store.RandomNote(e.ctx, p, tags, func(n int) int {
					if k >= n {
						return n - 1
					}
					return k
				})
				require.NoError(e.t, err)
				require.NotNil(e.t, n)
				if len(picked) > 0 && picked[len(picked)-1] == n.ID {
					break
				}
				picked = append(picked, n.ID)
				v, err := e.store.RandomView(e.ctx, p, tags, func(int) int { return k })
				require.NoError(e.t, err)
				assert.Equal(e.t, n.ID, v.ID, "RandomView picks as RandomNote")
			}
			want := []string{"c.md", "f.md", "h.md"}
			if tags != nil {
				want = []string{"h.md"}
			}
			assert.Equal(e.t, want, picked, "tags %v: the candidates are the notes, in ID order", tags)
		}
		empty := e.project()
		e.upsert(empty, fileNode("only.png"))
		n, err := e.store.RandomNote(e.ctx, empty, nil, func(int) int { panic("no candidate: pick is not called") })
		require.NoError(e.t, err)
		assert.Nil(e.t, n)
	}},
	{"a link to an attachment written before it resolves when it appears and breaks when it goes", func(e *env) {
		p := e.project()
		e.upsert(p, mkNote("a.md", ghost("pic.png")))
		assert.Equal(e.t, []string{"a.md"}, e.unresolvedLinkers(p, "pic.png"))
		e.upsert(p, fileNode("img/pic.png")) // its key claims the link
		assert.Equal(e.t, []string{"img/pic.png"}, e.linkTargets(p, "a.md"))
		assert.Equal(e.t, []string{"in:a.md"}, e.neighbors(p, "img/pic.png", core.DirectionIn, 0))
		require.Equal(e.t, 1, e.delete(p, "img/pic.png"))
		assert.Empty(e.t, e.neighbors(p, "a.md", core.DirectionOut, 0))
		assert.Equal(e.t, []string{"a.md"}, e.unresolvedLinkers(p, "pic.png"))
	}},
}
