package noteedit

import (
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The property tests generate notes whose structure the generator knows
// (where each real heading and frontmatter entry is, and which heading-like
// lines sit in code or comments), apply random edits, and check each
// result against that knowledge, not against the parser under test:
// everything outside the span the operation may touch is unchanged byte
// for byte, and the span holds what the operation promises.

// genHead is a real heading the generator wrote.
type genHead struct {
	level  int
	text   string
	start  int // offset of its first line
	body   int // offset after its last line
	parent int
}

// genKey is a frontmatter entry the generator wrote: raw[start:end].
type genKey struct {
	key        string
	start, end int
}

type genNote struct {
	raw     string
	eol     string
	body    int // offset of the body
	heads   []genHead
	keys    []genKey
	fmClose int // offset of the closing fence line; -1 without frontmatter
	fakes   []string
}

var titles = []string{"Today", "Tasks", "Notes", "Q1", "Projects", "Ideas", "Log"}
var words = []string{"alpha", "beta", "gamma", "#tag", "[[Link]]", "x > y", "2024-01-01", "café", "**bold**", "`code`", "Today", "tasks"}

func (g *genNote) end(i int) int {
	for j := i + 1; j < len(g.heads); j++ {
		if g.heads[j].level <= g.heads[i].level {
			return g.heads[j].start
		}
	}
	return len(g.raw)
}

func (g *genNote) ownEnd(i int) int {
	if i+1 < len(g.heads) && g.heads[i+1].start < g.end(i) {
		return g.heads[i+1].start
	}
	return g.end(i)
}

func words3(r *rand.Rand) string {
	n := 1 + r.IntN(4)
	var ws []string
	for range n {
		ws = append(ws, words[r.IntN(len(words))])
	}
	return strings.Join(ws, " ")
}

func generate(r *rand.Rand) *genNote {
	g := &genNote{eol: "\n", fmClose: -1}
	if r.IntN(3) == 0 {
		g.eol = "\r\n"
	}
	mixed := r.IntN(10) == 0
	var b strings.Builder
	nl := func() {
		if mixed && strings.Contains(b.String(), "\n") && r.IntN(4) == 0 { // the first break is the note's own
			if g.eol == "\n" {
				b.WriteString("\r\n")
			} else {
				b.WriteString("\n")
			}
			return
		}
		b.WriteString(g.eol)
	}
	ln := func(s string) { b.WriteString(s); nl() }
	if r.IntN(10) == 0 {
		b.WriteString(utf8BOM)
	}
	if r.IntN(5) < 3 {
		ln("---")
		for _, k := range r.Perm(7)[:1+r.IntN(6)] {
			if r.IntN(4) == 0 {
				ln("# a comment")
			}
			start := b.Len()
			switch k {
			case 0:
				ln("title: " + titles[r.IntN(len(titles))])
			case 1:
				ln("status: draft # inline comment")
			case 2:
				ln("tags:")
				ln("  - a")
				if r.IntN(2) == 0 {
					nl()
				}
				ln("  - b")
			case 3:
				ln("date: 2024-05-01")
			case 4:
				ln("aliases: [one, two]")
			case 5:
				ln("note: |")
				ln("  line one")
				nl()
				ln("  line three")
			case 6:
				ln("count: 3")
			}
			key := []string{"title", "status", "tags", "date", "aliases", "note", "count"}[k]
			g.keys = append(g.keys, genKey{key, start, b.Len()})
			if r.IntN(5) == 0 {
				nl()
			}
		}
		g.fmClose = b.Len()
		ln("---")
	}
	g.body = b.Len()
	blankBefore := true
	for range r.IntN(14) {
		switch k := r.IntN(10); {
		case k < 3: // ATX heading
			level := 1 + r.IntN(4)
			text := titles[r.IntN(len(titles))]
			start := b.Len()
			suffix := ""
			if r.IntN(5) == 0 {
				suffix = " ##"
			}
			ln(strings.Repeat("#", level) + " " + text + suffix)
			g.addHead(level, text, start, b.Len())
			blankBefore = true
			continue
		case k == 3: // setext heading, after a blank line
			if !blankBefore {
				nl()
			}
			text := titles[r.IntN(len(titles))]
			start := b.Len()
			ln(text)
			level := 1 + r.IntN(2)
			ln([]string{"===", "---"}[level-1])
			g.addHead(level, text, start, b.Len())
			blankBefore = true
			continue
		case k < 6: // paragraph
			for range 1 + r.IntN(3) {
				ln(words3(r))
			}
		case k == 6: // list
			for range 1 + r.IntN(3) {
				ln("- " + words3(r))
			}
		case k == 7: // fenced code with a fake heading
			fake := titles[r.IntN(len(titles))]
			fence := []string{"```", "~~~~"}[r.IntN(2)]
			ln(fence + "md")
			ln("## " + fake)
			ln(fence)
			g.fakes = append(g.fakes, fake)
		case k == 8: // a comment with a fake heading
			fake := titles[r.IntN(len(titles))]
			ln("%%")
			ln("# " + fake)
			ln("%%")
			g.fakes = append(g.fakes, fake)
		default: // indented code after a blank line
			if !blankBefore {
				nl()
			}
			ln("    # " + titles[r.IntN(len(titles))])
		}
		blankBefore = false
		if r.IntN(2) == 0 {
			nl()
			blankBefore = true
		}
	}
	g.raw = b.String()
	if r.IntN(5) == 0 {
		g.raw = strings.TrimRight(g.raw, "\r\n")
		if g.fmClose >= 0 && len(g.raw) <= g.fmClose+3 {
			g.raw = g.raw[:g.fmClose] + "---" + g.eol // keep the block closed
		}
		for i := range g.heads {
			g.heads[i].body = min(g.heads[i].body, len(g.raw))
		}
	}
	if !strings.Contains(g.raw, "\n") {
		g.eol = "\n" // a note of one line takes LF
	}
	return g
}

func (g *genNote) addHead(level int, text string, start, body int) {
	h := genHead{level: level, text: text, start: start, body: body, parent: -1}
	for p := len(g.heads) - 1; p >= 0; p = g.heads[p].parent {
		if g.heads[p].level < level {
			h.parent = p
			break
		}
	}
	g.heads = append(g.heads, h)
}

// resolve is the reference lookup of a heading path: exact text first,
// then any letter case; the parts of a path enclose each other.
func (g *genNote) resolve(parts []string) []int {
	for _, eq := range []func(a, b string) bool{exactEq, foldEq} {
		var out []int
		for i, h := range g.heads {
			if !eq(h.text, parts[len(parts)-1]) {
				continue
			}
			k := len(parts) - 2
			for p := h.parent; p >= 0 && k >= 0; p = g.heads[p].parent {
				if eq(g.heads[p].text, parts[k]) {
					k--
				}
			}
			if k < 0 {
				out = append(out, i)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

func blankOnly(s string) bool { return strings.TrimSpace(s) == "" }

// inserted returns the text an insertion of block at q adds, as the
// operation's contract says: the block and a line break, or at the end of
// a file without a final line break, the line break first.
func inserted(raw, eol, block string, q int, blank bool) string {
	pre := ""
	if blank {
		pre = eol
	}
	if q == len(raw) && q > 0 && !strings.HasSuffix(raw, "\n") && raw != utf8BOM {
		return eol + pre + block
	}
	return pre + block + eol
}

// insertions returns every q in [lo, hi] such that out is raw with ins
// inserted at q (several when ins repeats the text around it).
func insertions(raw, out, ins string, lo, hi int) []int {
	if len(out) != len(raw)+len(ins) {
		return nil
	}
	var qs []int
	for q := lo; q <= hi; q++ {
		if out[:q] == raw[:q] && out[q:q+len(ins)] == ins && out[q+len(ins):] == raw[q:] {
			qs = append(qs, q)
		}
	}
	return qs
}

// anyInsertion reports whether out is raw with the block inserted (in
// either of the contract's two forms) at some q in [lo, hi] for which ok
// holds.
func anyInsertion(raw, out, eol, block string, blank bool, lo, hi int, ok func(q int) bool) bool {
	qs := insertions(raw, out, inserted(raw, eol, block, -1, blank), lo, hi)
	// Right above a setext heading's text, a blank line follows the block.
	for _, q := range insertions(raw, out, inserted(raw, eol, block, -1, blank)+eol, lo, hi) {
		if q < len(raw) && !strings.HasPrefix(raw[q:], "#") {
			qs = append(qs, q)
		}
	}
	if hi >= len(raw) {
		qs = append(qs, insertions(raw, out, inserted(raw, eol, block, len(raw), blank), len(raw), len(raw))...)
	}
	for _, q := range qs {
		if ok(q) {
			return true
		}
	}
	return false
}

func TestRandomEditsKeepEverythingElse(t *testing.T) {
	trials := 3000
	if n, err := strconv.Atoi(os.Getenv("VAULTGRAPH_EDIT_TRIALS")); err == nil && n > 0 {
		trials = n
	}
	r := rand.New(rand.NewPCG(30, 1))
	stats := map[string]int{}
	for trial := range trials {
		g := generate(r)
		op, check := randomOp(r, g)
		e, err := Apply([]byte(g.raw), op)
		name := string(op.Operation)
		if err != nil {
			name += " refused"
		}
		stats[name]++
		if msg := check(e, err); msg != "" {
			t.Fatalf("trial %d: %s\nop: %+v\nnote: %q\nerr: %v\nout: %q", trial, msg, op, g.raw, err, outOf(e))
		}
		if err == nil && e.Changed() {
			if d := Diff("n.md", []byte(g.raw), e.Spans); !strings.HasPrefix(d, "--- a/n.md\n+++ b/n.md\n@@ -") {
				t.Fatalf("trial %d: diff %q", trial, d)
			}
		}
	}
	t.Logf("%d random edits: %v", trials, stats)
}

func outOf(e *Edit) string {
	if e == nil {
		return ""
	}
	return string(e.Out)
}

// randomOp returns a random operation on g and the check of its result.
func randomOp(r *rand.Rand, g *genNote) (Op, func(*Edit, error) string) {
	raw := g.raw
	content := func() (string, string) { // content as sent, and as the note's lines
		var ls []string
		bullet := []string{"- ", ""}[r.IntN(2)] // list items, or paragraph lines
		for range 1 + r.IntN(3) {
			ls = append(ls, bullet+words3(r))
		}
		sent := strings.Join(ls, "\n")
		if r.IntN(2) == 0 {
			sent += "\n"
		}
		return sent, strings.Join(ls, g.eol)
	}
	switch k := r.IntN(10); {
	case k < 6: // a section operation
		var path []string
		switch {
		case len(g.heads) > 0 && r.IntN(5) > 0:
			i := r.IntN(len(g.heads))
			path = []string{g.heads[i].text}
			if p := g.heads[i].parent; p >= 0 && r.IntN(2) == 0 {
				path = []string{g.heads[p].text, g.heads[i].text}
			}
		case len(g.fakes) > 0 && r.IntN(2) == 0:
			path = []string{g.fakes[r.IntN(len(g.fakes))]}
		default:
			path = []string{titles[r.IntN(len(titles))]}
		}
		if r.IntN(4) == 0 {
			path[len(path)-1] = strings.ToLower(path[len(path)-1])
		}
		operation := []Operation{Append, Prepend, ReplaceSection, InsertAfter}[r.IntN(4)]
		sent, block := content()
		if operation == InsertAfter {
			sent = "## New Section\n" + sent
			block = "## New Section" + g.eol + block
		}
		op := Op{Operation: operation, Heading: strings.Join(path, " > "), Content: sent}
		return op, func(e *Edit, err error) string {
			found := g.resolve(path)
			switch {
			case len(found) != 1 && err == nil:
				return fmt.Sprintf("heading matches %d real headings, yet no error", len(found))
			case len(found) != 1:
				return ""
			case err != nil:
				return "refused a heading that names one section"
			}
			i := found[0]
			h := g.heads[i]
			switch operation {
			case Append, Prepend:
				if !anyInsertion(raw, string(e.Out), g.eol, block, false, h.body, g.ownEnd(i), func(q int) bool {
					if operation == Append {
						return blankOnly(raw[q:g.ownEnd(i)])
					}
					return blankOnly(raw[h.body:q])
				}) {
					return "not one insertion of the content at the end (append) or start (prepend) of the section's own text"
				}
			case InsertAfter:
				if !anyInsertion(raw, string(e.Out), g.eol, block, true, h.body, g.end(i), func(q int) bool { return blankOnly(raw[q:g.end(i)]) }) {
					return "not one insertion of the new section after the section"
				}
			case ReplaceSection:
				out, end := string(e.Out), g.end(i)
				if !strings.HasPrefix(out, raw[:h.body]) || !strings.HasSuffix(out, raw[end:]) || len(out)-len(raw[end:]) < h.body {
					return "changed text outside the section's body"
				}
				mid := out[h.body : len(out)-len(raw[end:])]
				rest, ok := strings.CutPrefix(mid, block)
				if !ok {
					if rest, ok = strings.CutPrefix(mid, g.eol+block); !ok {
						return fmt.Sprintf("the section's body is not the content: %q", mid)
					}
				}
				if !blankOnly(rest) {
					return fmt.Sprintf("the section's body has more than the content: %q", rest)
				}
			}
			// The note's other headings are where they were.
			if got, want := headingTexts(parse(string(e.Out))), headingTexts(parse(raw)); operation != ReplaceSection && operation != InsertAfter && !reflect.DeepEqual(got, want) {
				return fmt.Sprintf("headings changed: %v, were %v", got, want)
			}
			return ""
		}
	case k < 8: // replace_text
		if len(raw) == 0 {
			return Op{Operation: ReplaceText, OldText: "x"}, func(e *Edit, err error) string {
				if err == nil {
					return "replaced text in an empty note"
				}
				return ""
			}
		}
		a := r.IntN(len(raw))
		old := raw[a:min(len(raw), a+1+r.IntN(24))]
		count := strings.Count(raw, old)
		want := count
		if r.IntN(4) == 0 {
			want = 1 + r.IntN(3)
		}
		repl := words3(r)
		op := Op{Operation: ReplaceText, OldText: old, NewText: repl, ExpectedCount: want}
		return op, func(e *Edit, err error) string {
			switch {
			case strings.HasPrefix(raw, utf8BOM) && a < len(utf8BOM):
				return "" // a span starting inside the byte order mark, which is no text
			case count != want && err == nil:
				return fmt.Sprintf("old_text occurs %d times, expected %d, yet no error", count, want)
			case count != want:
				return ""
			case err != nil:
				return "refused: " + err.Error()
			case string(e.Out) != strings.ReplaceAll(raw, old, repl):
				return "not every occurrence replaced, or more changed"
			}
			return ""
		}
	default: // frontmatter
		keys := []string{"status", "tags", "title", "count", "note", "new_key", "date"}
		key := keys[r.IntN(len(keys))]
		values := []any{"done", int64(7), []any{"x", "y"}, "2024-06-01", "with: colon", true, 2.5}
		value := values[r.IntN(len(values))]
		remove := r.IntN(3) == 0
		op := Op{Operation: SetFrontmatter, Key: key, Value: value}
		if remove {
			op = Op{Operation: RemoveFrontmatter, Key: key}
		}
		return op, func(e *Edit, err error) string {
			if err != nil {
				return "refused: " + err.Error()
			}
			out := string(e.Out)
			var at *genKey
			for i := range g.keys {
				if g.keys[i].key == key {
					at = &g.keys[i]
				}
			}
			switch {
			case remove && at == nil:
				if e.Changed() {
					return "removed a key that is not there"
				}
				return ""
			case remove:
				if out != raw[:at.start]+raw[at.end:] {
					return "removing changed more than the entry's lines"
				}
				return ""
			case at != nil:
				if !strings.HasPrefix(out, raw[:at.start]) || !strings.HasSuffix(out, raw[at.end:]) {
					return "setting changed more than the entry's lines"
				}
			case g.fmClose >= 0:
				if !strings.HasPrefix(out, raw[:g.fmClose]) || !strings.HasSuffix(out, raw[g.fmClose:]) {
					return "a new entry is not one insertion before the closing line"
				}
			default:
				if !strings.HasSuffix(out, raw[g.body:]) {
					return "the body changed when a block was added"
				}
			}
			o := parse(out)
			if o.fm == nil {
				return "no frontmatter after setting a key"
			}
			var m map[string]any
			if err := yaml.Unmarshal([]byte(strings.ReplaceAll(out[o.fm.open.next:o.fm.close.start], "\r\n", "\n")), &m); err != nil {
				return "frontmatter does not parse: " + err.Error()
			}
			var want map[string]any
			enc, _ := yaml.Marshal(map[string]any{key: value})
			_ = yaml.Unmarshal(enc, &want)
			if !reflect.DeepEqual(m[key], want[key]) {
				return fmt.Sprintf("%s is %#v, want %#v", key, m[key], want[key])
			}
			return ""
		}
	}
}

func headingTexts(o *outline) []string {
	var out []string
	for _, h := range o.heads {
		out = append(out, strconv.Itoa(h.level)+" "+h.text)
	}
	return out
}
