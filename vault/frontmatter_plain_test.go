package vault

import (
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// samePlainAsYAML fails t when plainFrontmatter accepts src and decodes it
// otherwise than the YAML parser does.
func samePlainAsYAML(t *testing.T, src string) bool {
	t.Helper()
	m, ok := plainFrontmatter(src)
	if !ok {
		return false
	}
	want, warnings := yamlFrontmatter("n.md", src)
	if got := emptyToNil(m); !reflect.DeepEqual(got, want) || len(warnings) > 0 {
		t.Fatalf("frontmatter %q:\nplain %#v\nyaml  %#v (warnings %q)", src, got, want, warnings)
	}
	return true
}

func TestPlainFrontmatterDecodesAsYAML(t *testing.T) {
	accepted := []string{
		"tags:\n  - galaxy\n  - neighbor/letter\ncreated: 2022-01-07\nstatus: done\n",
		"tags:\n- a\n- b\nrating: 5\n",
		"tags: [a, b/c, d-e]\nempty: []\n",
		"title: Dr. Who and the x_y.z\nzero: 0\nbig: 123456789012345678\n",
		"alias:\n\n  - one\n\nnext: yes\non: off\n",
		"a:\nb:\n  - x\n",
		"related: \"[[Dynasty branch 24469]]\"\ntitle: \"Account 86857 (memory): a # b\"\n",
		"title: Account verse (audit), don't & why? yes! a+b\nDue date: 2024-01-02\n",
		"up: [\"[[A]]\", \"[[B]]\", c]\nq: \"\"\nu: \" ünïcödé 日本 \"\n",
	}
	for _, src := range accepted {
		if !samePlainAsYAML(t, src) {
			t.Errorf("declined %q, which it is meant to decode", src)
		}
	}
	declined := []string{
		"a: true\n", "a: null\n", "true: a\n", "a: 05\n", "a: 1.5\n", "a: 2022-02-31\n",
		"a: 'q'\n", "a: b # c\n", "a: b: c\n", "a: b\na: c\n", "a:\n  b: c\n",
		"a:\n  - x\n   - y\n", "a: x\n  - y\n", "- a\n", "a:\n  - [x]\n", "a: [x, 'y']\n",
		"a:\tb\n", "# c\na: b\n", "a: b  c\n", "a: é\n", "a:b\n", "1: a\n", "a:\n  -\n",
		"a: \"b\\\"c\"\n", "a: \"b\\nc\"\n", "a: \"b\" # c\n", "a: \"b\n", "a: [\"b, c\"]\n", "a: [b (c)]\n", "a b : c\n", "a  b: c\n",
		"a: 1234567890123456789\n", "a: x\n  continued\n",
	}
	for _, src := range declined {
		if _, ok := plainFrontmatter(src); ok {
			t.Errorf("decoded %q, which it must leave to the YAML parser", src)
		}
	}
	// Keys near YAML's 1,024 characters for a key without quotes: decoded
	// up to maxPlainKey, left to the parser beyond it, and never decoded
	// otherwise than it does.
	for _, n := range []int{maxPlainKey - 1, maxPlainKey, maxPlainKey + 1, 1023, 1024, 1025, 3183} {
		src := "k" + strings.Repeat("N", n-1) + ": 0\n"
		if got := samePlainAsYAML(t, src); got != (n <= maxPlainKey) {
			t.Errorf("a key of %d letters: decoded %v", n, got)
		}
	}
}

// TestPlainFrontmatterPropertyAgainstYAML: for every frontmatter built
// from pieces near the edge of what the plain reader accepts, it either
// declines or decodes what the YAML parser decodes.
func TestPlainFrontmatterPropertyAgainstYAML(t *testing.T) {
	// Each piece is drawn from the usual ones, or one time in ten from
	// those at or past the edge.
	keys := pieces{
		usual: []string{"tags", "status", "created", "a-b", "_x", "x_1", "y", "on", "Due date"},
		edge:  []string{"true", "Null", "1k", "k k", "k  k", "k ", "k:", "é", "-k", "<<", "\"k\""},
	}
	seps := pieces{usual: []string{": "}, edge: []string{":", ":  ", ":x", " :", ":\t"}}
	values := pieces{
		usual: []string{"done", "2022-01-07", "5", "0", "yes", "a b", "[a, b]", "[]", "[a,b]", "[ a ]", "[a, 1, 2022-01-07]", "x/y.z", "Dr.", "a ",
			"\"[[Note 5]]\"", "\"A: b # c (d)\"", "\"\"", "\" x \"", "[\"[[A]]\", \"[[B]]\"]", "Verse (audit), don't & why? a+b!", "\"日本 ü\""},
		edge: []string{"2022-02-31", "2022-1-7", "05", "-3", "1e3", "1_000", "true", "FALSE", "null", "~", "a  b", "a: b", "a #c", "a#c",
			"[a, true]", "-x", "é", "'a'", ".5", "0x10", "9223372036854775807", "123456789012345678", "[a", "a]",
			"\"a\\\"b\"", "\"a\\tb\"", "\"a\" x", "\"a", "a\"", "\"\u2028\"", "\"\u0085\"", "\"\ufeff\"", "\"\x01\"", "\"\xff\"",
			"[a (b)]", "[\"a, b\"]", "a (b", "a: (b)", "(a)", "a ? b", "a ,b", "a,", "a'", "a!"},
	}
	items := pieces{
		usual: []string{"  - a", "  - 5", "  - 2022-01-07", "  - x y", "", "  - \"[[Q]]\"", "  - a (b), c"},
		edge:  []string{"- a", "  -a", "   - b", "  - [x]", "  - true", "  -", "    - c", "  b", "  # c"},
	}
	rng := rand.New(rand.NewPCG(24, 1))
	accepted := 0
	const docs = 20000
	for range docs {
		var b strings.Builder
		for i := range 1 + rng.IntN(5) {
			b.WriteString(keys.draw(rng))
			if rng.IntN(10) > 0 {
				b.WriteString(strconv.Itoa(i)) // mostly no duplicate keys
			}
			b.WriteString(seps.draw(rng))
			list := rng.IntN(3) == 0
			if !list || rng.IntN(10) == 0 {
				b.WriteString(values.draw(rng))
			}
			b.WriteByte('\n')
			for range rng.IntN(4) * btoi(list || rng.IntN(10) == 0) {
				b.WriteString(items.draw(rng))
				b.WriteByte('\n')
			}
		}
		if samePlainAsYAML(t, b.String()) {
			accepted++
		}
	}
	// Both sides of the edge are reached.
	if accepted < docs/50 || accepted > docs-docs/50 {
		t.Errorf("accepted %d of %d generated frontmatters: the generator no longer tests both sides", accepted, docs)
	}
	t.Logf("accepted %d of %d", accepted, docs)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

type pieces struct{ usual, edge []string }

func (p pieces) draw(rng *rand.Rand) string {
	if rng.IntN(10) == 0 {
		return p.edge[rng.IntN(len(p.edge))]
	}
	return p.usual[rng.IntN(len(p.usual))]
}

// FuzzPlainFrontmatter: any text the plain reader accepts decodes as the
// YAML parser decodes it.
func FuzzPlainFrontmatter(f *testing.F) {
	for _, s := range []string{
		"tags:\n  - galaxy\ncreated: 2022-01-07\nstatus: done\nrating: 5\n",
		"tags: [a, b]\n", "a:\n- x\n", "a: b\n\nc: d\n",
		"related: \"[[Note]]\"\ntitle: \"A: b (c)\"\n", "up: [\"[[A]]\", b]\nt: Verse (x), don't!\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if strings.TrimSpace(src) == "" || strings.Contains(src, "\r") {
			return // parseFrontmatter handles these before either reader
		}
		samePlainAsYAML(t, src)
	})
}

// TestPlainFrontmatterKeepsNoFileAlive: the decoded strings are not
// windows into the file's text (a tag or title kept by a store would
// keep the whole file alive).
func TestPlainFrontmatterKeepsNoFileAlive(t *testing.T) {
	raw := []byte("---\ntitle: Kept\ntags:\n  - one\nrelated: \"[[Other]]\"\n---\n" + strings.Repeat("body ", 1000))
	p := parseNote("a.md", raw)
	text := p.note.Content
	inside := func(s string) bool {
		lo := uintptr(unsafe.Pointer(unsafe.StringData(text))) - 200
		at := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		return at >= lo && at < lo+uintptr(len(text))+200
	}
	for _, s := range []string{p.note.Title, p.note.Tags[0], p.note.Frontmatter["related"].(string)} {
		if inside(s) {
			t.Errorf("%q is a window into the note's text", s)
		}
	}
}
