package vault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// FuzzParse checks that any bytes parse without panicking and that what
// Parse reports is consistent: every link's Raw is where its span says,
// the part a rename replaces lies inside the link, keys and tags are well
// formed. The seed corpus is testdata/fuzz/FuzzParse plus the fixture
// vault's notes.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/vault/*/*.md")
	more, _ := filepath.Glob("testdata/vault/*.md")
	for _, p := range append(files, more...) {
		if raw, err := os.ReadFile(p); err == nil {
			f.Add(raw)
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		p := parseNote("notes/fuzz.md", raw)
		n := p.note
		text := string(raw[p.bom:])
		require.Len(t, p.spans, len(n.Links))
		for i, s := range p.spans {
			require.True(t, 0 <= s.start && s.start <= s.tStart && s.tStart <= s.tEnd && s.tEnd <= s.end && s.end <= len(text), "span %+v", s)
			require.Equal(t, n.Links[i].Raw, text[s.start:s.end])
			require.NotEmpty(t, n.Links[i].Key)
			require.NotContains(t, n.Links[i].Raw, "\n")
		}
		for _, tag := range n.Tags {
			if utf8.ValidString(tag) {
				require.True(t, validTag(tag), "tag %q", tag)
			}
		}
		require.Len(t, n.Hash, 64)
		for _, w := range p.warnings {
			require.NotEmpty(t, w)
		}
		if !strings.HasPrefix(text, "---") {
			require.Nil(t, n.Frontmatter)
		}
	})
}

// TestParsePathologicalInputs parses inputs built to defeat naive scanners
// (one huge line, thousands of unmatched openers, deep nesting). Each is
// megabytes long, so a scanner that is quadratic on any of them would run
// for minutes and hit the test timeout; the parser is linear and finishes
// in milliseconds. Speed itself is measured by BenchmarkParse.
func TestParsePathologicalInputs(t *testing.T) {
	const n = 1 << 20
	inputs := map[string]string{
		"one huge line":            strings.Repeat("word ", n/5),
		"unclosed wikilinks":       strings.Repeat("[[a ", n/4),
		"unclosed brackets":        strings.Repeat("[", n),
		"unmatched backtick runs":  backtickLadder(n),
		"unclosed code spans":      strings.Repeat("`a ", n/3),
		"markdown link openers":    strings.Repeat("[a](b \"", n/7),
		"nested parens":            "[a](" + strings.Repeat("(", n) + ")",
		"comment openers":          strings.Repeat("%% x ", n/5),
		"html comment openers":     strings.Repeat("<!-- ", n/5),
		"hashes":                   strings.Repeat("#", n),
		"tags":                     strings.Repeat(" #t", n/3),
		"deep block quotes":        strings.Repeat(">", n),
		"deep lists":               strings.Repeat(" ", n) + "- x",
		"fences":                   strings.Repeat("```\n", n/4),
		"frontmatter lines":        "---\n" + strings.Repeat("a: [\n", n/5) + "---\nbody",
		"many bad frontmatter":     "---\n" + strings.Repeat("k: @x\n", n/6) + "---\n",
		"nested yaml":              "---\na: " + strings.Repeat("[", n/2) + "\n---\n",
		"wikilinks with many bars": "[[" + strings.Repeat("|", n) + "]]",
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			parseNote("p.md", []byte(in))
		})
	}
}

// backtickLadder returns runs of 1, 2, 3, ... backticks separated by a
// space: no run has a closer, the worst case for code span matching.
func backtickLadder(n int) string {
	var b strings.Builder
	for k := 1; b.Len() < n; k++ {
		b.WriteString(strings.Repeat("`", k))
		b.WriteString(" x ")
	}
	return b.String()
}
