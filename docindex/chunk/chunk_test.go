package chunk

import (
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// piece is a compact expectation: header path and content.
type piece struct{ path, content string }

func simplify(ps []Piece) []piece {
	if len(ps) == 0 {
		return nil
	}
	out := make([]piece, len(ps))
	for i, p := range ps {
		out[i] = piece{p.HeaderPath, p.Content}
	}
	return out
}

func TestMarkdownRules(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want []piece
	}{
		{"text before the first heading is kept", "Intro line.\n\n# A\nbody a", []piece{{"", "Intro line."}, {"A", "# A\nbody a"}}},
		{"nested headings build the path", "# A\na\n## B\nb\n### C\nc", []piece{{"A", "# A\na"}, {"A > B", "## B\nb"}, {"A > B > C", "### C\nc"}}},
		{"a heading closes deeper and equal levels", "# A\n## B\nb\n# D\nd\n## E\ne", []piece{{"A > B", "## B\nb"}, {"D", "# D\nd"}, {"D > E", "## E\ne"}}},
		{"a heading-only section gives no piece", "# Title\n## Part\ntext", []piece{{"Title > Part", "## Part\ntext"}}},
		{"frontmatter is left out", "---\ntitle: x\ntags: [a]\n---\nHello\n# H\nh", []piece{{"", "Hello"}, {"H", "# H\nh"}}},
		{"unterminated frontmatter is text", "---\nnot closed", []piece{{"", "---\nnot closed"}}},
		{"headings inside code fences do not cut", "# A\n```\n# not a heading\n```\nafter", []piece{{"A", "# A\n```\n# not a heading\n```\nafter"}}},
		{"closing hashes are dropped from titles", "## Setup ##\nx", []piece{{"Setup", "## Setup ##\nx"}}},
		{"#tag is not a heading", "#tag text\n# Real\nr", []piece{{"", "#tag text"}, {"Real", "# Real\nr"}}},
		{"seven hashes are text", "####### seven", []piece{{"", "####### seven"}}},
		{"skipped levels still nest", "# A\n### C\nc", []piece{{"A > C", "### C\nc"}}},
		{"empty document gives nothing", "  \n\n", nil},
		{"CRLF line ends", "# A\r\nbody\r\n", []piece{{"A", "# A\nbody"}}},
		{"setext headings are text", "Title\n=====\nbody", []piece{{"", "Title\n=====\nbody"}}},
		{"paragraphs of a short section stay in one piece", "# A\np1\n\np2", []piece{{"A", "# A\np1\n\np2"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, simplify(Markdown(c.in)))
		})
	}
}

// sentence returns a sentence of about n characters with a marker.
func sentence(marker string, n int) string {
	s := marker + " " + strings.Repeat("word ", (n-len(marker)-2)/5)
	return strings.TrimSpace(s) + "."
}

func TestLongSectionsSplitAtParagraphsThenSentences(t *testing.T) {
	// Three paragraphs of ~400 characters: two fit in a piece, the third
	// starts the next one, with no overlap (no paragraph was cut).
	p := []string{sentence("P1", 400), sentence("P2", 400), sentence("P3", 400)}
	got := Markdown("# Long\n" + strings.Join(p, "\n\n"))
	require.Len(t, got, 2)
	assert.Equal(t, "# Long\n"+p[0]+"\n\n"+p[1], got[0].Content[:len("# Long\n"+p[0]+"\n\n"+p[1])])
	assert.True(t, strings.HasPrefix(got[1].Content, "P3"), "a new piece starts at a paragraph: %q", got[1].Content[:20])
	for _, g := range got {
		assert.Equal(t, "Long", g.HeaderPath)
	}

	// One paragraph of 12 sentences of ~200 characters: split at sentence
	// ends, each later piece starting with the end of the piece before.
	var ss []string
	for i := range 12 {
		ss = append(ss, sentence(string(rune('A'+i))+"x", 200))
	}
	got = Text(strings.Join(ss, " "))
	require.Greater(t, len(got), 2)
	for i, g := range got {
		assert.LessOrEqual(t, utf8.RuneCountInString(g.Content), MaxChars)
		assert.True(t, strings.HasSuffix(g.Content, "."), "piece %d ends at a sentence end", i)
		if i > 0 {
			prev := got[i-1].Content
			// The overlap is a suffix of the previous piece.
			head := g.Content[:40]
			assert.Contains(t, prev[len(prev)-OverlapChars:], head[:20], "piece %d starts with the end of piece %d", i, i-1)
		}
	}
}

func TestHugeWordsAndSentencesAreCut(t *testing.T) {
	word := strings.Repeat("é", 2500) // multi-byte, never split inside a rune
	got := Text(word)
	require.Len(t, got, 3)
	total := 0
	for _, g := range got {
		require.True(t, utf8.ValidString(g.Content))
		require.LessOrEqual(t, utf8.RuneCountInString(g.Content), MaxChars)
		total += utf8.RuneCountInString(g.Content)
	}
	assert.Equal(t, 2500, total, "no overlap when there is no boundary to start at")

	long := strings.TrimSpace(strings.Repeat("alpha beta gamma ", 200)) // one sentence, 3,400 chars
	for _, g := range Text(long) {
		require.LessOrEqual(t, utf8.RuneCountInString(g.Content), MaxChars)
		assert.False(t, strings.HasPrefix(g.Content, " "))
	}
}

func TestTextRules(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want []string
	}{
		{"short paragraphs pack into one piece", "one\n\ntwo\n\n\nthree", []string{"one\n\ntwo\n\nthree"}},
		{"blank lines with spaces separate paragraphs", "a\n  \nb", []string{"a\n\nb"}},
		{"lines of a paragraph stay together", "line one\nline two", []string{"line one\nline two"}},
		{"nothing gives nothing", "\n\n", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, p := range Text(c.in) {
				got = append(got, p.Content)
				assert.Empty(t, p.HeaderPath)
			}
			assert.Equal(t, c.want, got)
		})
	}
	// Paragraphs too long together are cut between them.
	a, b := sentence("A", 600), sentence("B", 600)
	got := Text(a + "\n\n" + b)
	require.Len(t, got, 2)
	assert.Equal(t, a, got[0].Content)
	assert.Equal(t, b, got[1].Content)
}

func TestPythonRules(t *testing.T) {
	src := `"""Module docstring."""
import os
from typing import (
    Any,
)

X = 1


# helper comment
@decorator
@other(arg=1)
def f(a,
b):
    """Doc
with a line at column 0
"""
    return a


class C(Base):
    def m(self):
        pass


async def g():
    s = """
def not_a_def():
"""
    return s

if __name__ == "__main__":
    f(1, 2)
`
	got := simplify(Python(src))
	require.Len(t, got, 5, "%q", got)
	assert.Equal(t, "module", got[0].path)
	assert.Equal(t, "\"\"\"Module docstring.\"\"\"\nimport os\nfrom typing import (\n    Any,\n)\n\nX = 1", got[0].content)
	assert.Equal(t, "def f", got[1].path)
	assert.True(t, strings.HasPrefix(got[1].content, "# helper comment\n@decorator\n@other(arg=1)\ndef f(a,"), got[1].content)
	assert.Contains(t, got[1].content, "with a line at column 0")
	assert.Equal(t, "class C", got[2].path)
	assert.Contains(t, got[2].content, "def m(self)")
	assert.Equal(t, "def g", got[3].path)
	assert.Contains(t, got[3].content, "def not_a_def():")
	assert.Equal(t, "module", got[4].path)
	assert.True(t, strings.HasPrefix(got[4].content, `if __name__ == "__main__":`))

	t.Run("a file of only definitions has no module piece", func(t *testing.T) {
		got := simplify(Python("def a():\n    pass\n\ndef b():\n    pass\n"))
		assert.Equal(t, []piece{{"def a", "def a():\n    pass"}, {"def b", "def b():\n    pass"}}, got)
	})
	t.Run("backslash continuations do not cut", func(t *testing.T) {
		got := simplify(Python("x = 1 + \\\ndef_like\ndef a():\n    pass"))
		assert.Equal(t, []piece{{"module", "x = 1 + \\\ndef_like"}, {"def a", "def a():\n    pass"}}, got)
	})
	t.Run("long definitions split at lines with overlap", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("def big():\n")
		for i := range 100 {
			b.WriteString("    x" + strings.Repeat("y", 20) + " = " + string(rune('0'+i%10)) + "\n")
		}
		got := Python(b.String())
		require.Greater(t, len(got), 2)
		for i, p := range got {
			assert.Equal(t, "def big", p.HeaderPath)
			assert.LessOrEqual(t, utf8.RuneCountInString(p.Content), MaxChars)
			if i > 0 {
				first := strings.SplitN(p.Content, "\n", 2)[0]
				assert.Contains(t, got[i-1].Content, first, "piece %d starts with a line of piece %d", i, i-1)
			}
		}
	})
}

func TestPDFByPage(t *testing.T) {
	data, err := os.ReadFile("testdata/two-pages.pdf")
	require.NoError(t, err)
	got, err := PDF(data)
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, 1, got[0].Page)
	assert.Contains(t, got[0].Content, "northern region")
	assert.Equal(t, 2, got[1].Page)
	assert.Contains(t, got[1].Content, "warehouse inventory")

	_, err = PDF([]byte("%PDF-1.4\nnot really"))
	assert.Error(t, err)
	_, err = PDF(nil)
	assert.Error(t, err)
}

func TestKindOf(t *testing.T) {
	for name, want := range map[string]Kind{"a.md": KindMarkdown, "A.MARKDOWN": KindMarkdown, "x.txt": KindText, "s.py": KindPython, "d.PDF": KindPDF} {
		k, ok := KindOf(name)
		assert.True(t, ok, name)
		assert.Equal(t, want, k, name)
	}
	for _, name := range []string{"a.docx", "noext", "x.md.bak", ".md.swp"} {
		_, ok := KindOf(name)
		assert.False(t, ok, name)
	}
}

func TestSplitDecodesText(t *testing.T) {
	got, err := Split(KindText, []byte("\uFEFFbad \xff byte"))
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, "bad \uFFFD byte", got[0].Content)
}
