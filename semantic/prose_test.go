package semantic_test

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/semantic"
)

func TestProse(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"badges and images", "[![downloads](https://img.shields.io/x.svg)](https://github.com/a/b) ![shot](pic.png) ![[diagram.png]]\nThe plugin draws maps.", "The plugin draws maps."},
		{"links to their text", "See [the docs](https://example.com/docs) and [[Other note|that note]] or [[Plain#Part]].", "See the docs and that note or Plain Part."},
		{"html and comments", "<span class=\"x\">Hello</span> <!-- gone -->world %% hidden %%!", "Hello  world !"},
		{"multi-line comments", "before\n%% a\nb %%\nafter\n<!--\nx\n-->\nend", "before\nafter\nend"},
		{"bare urls", "Go to https://example.com/a?b=c now, or www.example.org.", "Go to  now, or"},
		{"code fence keeps its first line", "Intro\n\n```go\nfunc main() {\n\tx := 1\n}\n```\nOutro", "Intro\n\nfunc main() {\n\nOutro"},
		{"headings, quotes, callouts, emphasis", "# Title\n> [!note] Careful\n> **bold** and `code` and snake_case", "Title\n\nCareful\nbold and code and snake_case"},
		{"tables", "| a | b |\n|---|---|\n| 1 | 2 |", "a   b\n1   2"},
		{"empty", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, semantic.Prose(c.in))
		})
	}
}

func words(s string) int { return len(strings.Fields(s)) }

func TestWindows(t *testing.T) {
	// A short note is one window: title, blank line, prose.
	require.Equal(t, []string{"T\n\nshort body"}, semantic.Windows("T", "short **body**", words, 50, 4))
	require.Equal(t, []string{"T"}, semantic.Windows("T", "![x](y.png)", words, 50, 4))

	// A long note: windows within the limit, each headed by the title
	// and the headings it sits under.
	var b strings.Builder
	b.WriteString("# Install\n\n")
	for range 6 {
		b.WriteString(strings.Repeat("alpha ", 9) + "\n\n")
	}
	b.WriteString("## Usage\n\n")
	for range 6 {
		b.WriteString(strings.Repeat("beta ", 9) + "\n\n")
	}
	w := semantic.Windows("Title", b.String(), words, 30, 10)
	require.Greater(t, len(w), 2)
	sawUsage := false
	for _, x := range w {
		require.LessOrEqual(t, words(x), 30, x)
		require.True(t, strings.HasPrefix(x, "Title\n"), x)
		if strings.Contains(x, "beta") {
			require.Contains(t, x, "Install\nUsage", "a window under Usage carries its headings: %q", x)
			sawUsage = true
		}
	}
	require.True(t, sawUsage)
	require.Len(t, semantic.Windows("Title", b.String(), words, 30, 2), 2, "at most maxWindows")
}

// TestWindowsBounded: every window fits, there are at most maxWindows, and
// each starts with the title, for random markdown, and a 5 MB note of one
// line costs what MaxProseInput bytes do.
func TestWindowsBounded(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"word ", "# head\n", "\n\n", "[link](http://x) ", "![i](j) ", "```\ncode\n", "%% c ", "<b>", "| t |\n", "https://u.v/w ", "long" + strings.Repeat("x", 30) + " "}
	for range 300 {
		var b strings.Builder
		for range r.IntN(400) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		maxTok, maxWin := 5+r.IntN(40), 1+r.IntN(5)
		w := semantic.Windows("T", b.String(), words, maxTok, maxWin)
		require.NotEmpty(t, w)
		require.LessOrEqual(t, len(w), maxWin)
		for _, x := range w {
			require.True(t, strings.HasPrefix(x, "T"), x)
			if len(w) > 1 {
				require.LessOrEqual(t, words(x), maxTok, x)
			}
		}
	}
	huge := strings.Repeat("all one line of words ", 5<<20/22)
	start := time.Now()
	w := semantic.Windows("Huge", huge, words, 254, semantic.MaxWindows)
	require.Len(t, w, semantic.MaxWindows)
	require.Less(t, len(strings.Join(w, "")), semantic.MaxProseInput+1024)
	t.Logf("5 MB note: %d windows in %s", len(w), time.Since(start))
}

// windowEmbedder is a fakeEmbedder with a token limit, counting words:
// the indexer cuts long notes into windows for it.
type windowEmbedder struct {
	fakeEmbedder
	texts []string
}

func (w *windowEmbedder) Tokens(s string) int { return words(s) }
func (w *windowEmbedder) MaxTokens() int      { return 12 }
func (w *windowEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	w.texts = append(w.texts, texts...)
	return w.fakeEmbedder.Embed(ctx, texts)
}

// TestIndexerWindowsAndUpgrade: a long note is embedded in windows and
// stored as one vector under NoteModel; vectors stored under the bare
// model id (before TextVersion) are stale, so the notes are embedded again.
func TestIndexerWindowsAndUpgrade(t *testing.T) {
	ctx := t.Context()
	s := memstore.New()
	long := core.Note{ID: "long.md", Title: "long", Content: strings.Repeat("many words in a row here\n\n", 10), Hash: "h1"}
	short := core.Note{ID: "short.md", Title: "short", Content: "a few words", Hash: "h2"}
	require.NoError(t, s.UpsertNotes(ctx, "p", []core.Note{long, short}))
	// What an older version stored: vectors under the bare model id.
	require.NoError(t, s.SetNoteVectors(ctx, "p", "m", []core.NoteVector{
		{ID: "long.md", Hash: "h1", Vector: []float32{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{ID: "short.md", Hash: "h2", Vector: []float32{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	}))
	emb := &windowEmbedder{fakeEmbedder: fakeEmbedder{model: "m"}}
	stale, err := s.StaleVectors(ctx, "p", semantic.NoteModel(emb))
	require.NoError(t, err)
	require.Len(t, stale, 2, "vectors of the bare model id are stale after the text version")
	st, err := newIndexer(t, s, emb, 8).IndexStale(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, st.Embedded)
	require.Greater(t, len(emb.texts), 2, "the long note went in several windows: %q", emb.texts)
	for _, x := range emb.texts {
		require.LessOrEqual(t, words(x), emb.MaxTokens()-2, x)
	}
	stale, err = s.StaleVectors(ctx, "p", semantic.NoteModel(emb))
	require.NoError(t, err)
	require.Empty(t, stale)
}

// TestRelevanceFloor: hits below the floor are left out; when none is
// left the answer is empty and a call warning says nothing is relevant,
// naming the closest note; a search whose query could not be embedded
// (keywords only) keeps its hits.
func TestRelevanceFloor(t *testing.T) {
	ctx := t.Context()
	s := memstore.New()
	require.NoError(t, s.UpsertNotes(ctx, "p", notes(5)))
	emb := &fakeEmbedder{model: "m"}
	_, err := newIndexer(t, s, emb, 8).IndexStale(ctx)
	require.NoError(t, err)

	open, err := semantic.NewSearcher("p", s, emb, nil)
	require.NoError(t, err)
	all, err := open.Search(ctx, "body 2 word2", 5)
	require.NoError(t, err)
	require.NotEmpty(t, all)
	require.Equal(t, "n002.md", all[0].ID)

	floored, err := semantic.NewSearcher("p", s, emb, nil, semantic.WithRelevanceFloor(all[0].Score))
	require.NoError(t, err)
	hits, err := floored.Search(ctx, "body 2 word2", 5)
	require.NoError(t, err)
	require.Len(t, hits, 1, "only the hit at the floor stays")

	high, err := semantic.NewSearcher("p", s, emb, nil, semantic.WithRelevanceFloor(all[0].Score+0.01))
	require.NoError(t, err)
	wctx, w := core.WithCallWarnings(ctx)
	hits, err = high.Search(wctx, "body 2 word2", 5)
	require.NoError(t, err)
	require.Empty(t, hits)
	require.Len(t, w.List(), 1)
	require.Contains(t, w.List()[0], "nothing relevant")
	require.Contains(t, w.List()[0], "n002.md")

	down, err := semantic.NewSearcher("p", s, &fakeEmbedder{model: "m", failFrom: 1}, nil, semantic.WithRelevanceFloor(0.99))
	require.NoError(t, err)
	hits, err = down.Search(ctx, "word2", 5)
	require.NoError(t, err)
	require.NotEmpty(t, hits, "keywords alone: no floor")
}

func TestCombineWindows(t *testing.T) {
	one := []float32{3, 4}
	require.Equal(t, one, semantic.CombineWindows([][]float32{one}), "one window: its vector")
	// Window k weighs 1/(k+1), each normalised first: (1,0) + (0,1)/2.
	v := semantic.CombineWindows([][]float32{{2, 0}, {0, 5}, {}, {0, 0}})
	require.InDelta(t, 2/math.Sqrt(5), v[0], 1e-6)
	require.InDelta(t, 1/math.Sqrt(5), v[1], 1e-6)
	// The third window counts a third.
	v = semantic.CombineWindows([][]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}})
	n := math.Sqrt(1 + 0.25 + 1.0/9)
	require.InDeltaSlice(t, []float64{1 / n, 0.5 / n, 1 / (3 * n)}, []float64{float64(v[0]), float64(v[1]), float64(v[2])}, 1e-6)
	require.Equal(t, []float32{0, 0}, semantic.CombineWindows([][]float32{{0, 0}, {0, 0}}), "no direction: zero")
}
