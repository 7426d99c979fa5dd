package noteedit

import (
	"strings"
)

// utf8BOM is the byte order mark some editors put at the start of a file.
const utf8BOM = "\ufeff"

// line is one line of a note: text is raw[start:end] (without its line
// break) and the next line starts at next (== end at the end of a file
// without a final line break).
type line struct {
	start, end, next int
}

// heading is one heading of a note's body.
type heading struct {
	level  int
	text   string // as written, closing #s and surrounding blanks dropped
	lineNo int    // 1-based line of its first line in the file
	start  int    // offset of its first line
	body   int    // offset just after its last line (the underline of a setext heading)
	end    int    // where its section ends: the next heading of the same or a higher level, or the end of the file
	parent int    // index of the nearest enclosing heading, -1 for none
}

// outline is what an edit needs to know of a note: where its frontmatter
// and body are, its line breaks and its headings.
type outline struct {
	raw     string
	eol     string // "\r\n" when the file's first line break is one, else "\n"
	bom     int    // length of the byte order mark, 0 or 3
	fm      *fmBlock
	body    int // offset of the body: after the BOM and the frontmatter block
	lines   []line
	heads   []heading
	firstBL int // index in lines of the body's first line
}

// fmBlock is the frontmatter block: the opening fence line, the YAML
// lines, the closing fence line.
type fmBlock struct {
	open  line
	lines []line // the YAML lines between the fences
	close line
}

// parse reads the outline of a whole note file.
func parse(raw string) *outline {
	o := &outline{raw: raw, eol: "\n"}
	if strings.HasPrefix(raw, utf8BOM) {
		o.bom = len(utf8BOM)
	}
	if i := strings.IndexByte(raw, '\n'); i > 0 && raw[i-1] == '\r' {
		o.eol = "\r\n"
	}
	for pos := o.bom; pos < len(raw); {
		end := strings.IndexByte(raw[pos:], '\n')
		if end < 0 {
			o.lines = append(o.lines, line{pos, len(raw), len(raw)})
			break
		}
		e := pos + end
		text := e
		if text > pos && raw[text-1] == '\r' {
			text--
		}
		o.lines = append(o.lines, line{pos, text, e + 1})
		pos = e + 1
	}
	o.body = o.bom
	o.frontmatter()
	o.headings()
	return o
}

func (o *outline) text(l line) string { return o.raw[l.start:l.end] }

// frontmatter finds the block at the very top: a first line "---" and a
// closing "---" or "..." line (as vault's parser finds it; without a
// closing line the whole file is body, as in Obsidian).
func (o *outline) frontmatter() {
	if len(o.lines) == 0 || strings.TrimRight(o.text(o.lines[0]), " \t") != "---" {
		return
	}
	for i := 1; i < len(o.lines); i++ {
		switch strings.TrimRight(o.text(o.lines[i]), " \t") {
		case "---", "...":
			o.fm = &fmBlock{open: o.lines[0], lines: o.lines[1:i], close: o.lines[i]}
			o.body = o.lines[i].next
			o.firstBL = i + 1
			return
		}
	}
}

// headings finds the body's headings: ATX headings ("## Title") and setext
// headings (a paragraph underlined with === or ---), not lines inside
// fenced code blocks, %% comments %% or <!-- HTML comments -->, block
// quotes or list items, nor lines indented four columns or more.
func (o *outline) headings() {
	var fenceChar byte
	fenceLen := 0
	inPercent, inHTML := false, false
	para := -1 // index of the first line of the paragraph the last line belongs to
	for i := o.firstBL; i < len(o.lines); i++ {
		l := o.lines[i]
		t := o.text(l)
		inner, indented := unindent(t)
		if fenceChar != 0 {
			if !indented && closesFence(inner, fenceChar, fenceLen) {
				fenceChar = 0
			}
			continue
		}
		if inHTML {
			if strings.Contains(t, "-->") {
				inHTML = false
			}
			para = -1
			continue
		}
		if inPercent {
			if strings.Count(t, "%%")%2 == 1 {
				inPercent = false
			}
			para = -1
			continue
		}
		blank := strings.TrimSpace(t) == ""
		switch {
		case blank:
			para = -1
			continue
		case indented:
			// Code after a blank line, or a paragraph's continuation.
			if para < 0 {
				continue
			}
		case openFence(inner) != 0:
			fenceChar, fenceLen = inner[0], len(inner)-len(strings.TrimLeft(inner, inner[:1]))
			para = -1
			continue
		}
		if strings.Count(t, "%%")%2 == 1 {
			inPercent = true
			para = -1
			continue
		}
		if k := strings.Index(t, "<!--"); k >= 0 && !strings.Contains(t[k:], "-->") {
			inHTML = true
			para = -1
			continue
		}
		if !indented {
			if level, text, ok := atxHeading(inner); ok {
				o.addHeading(level, text, i, i)
				para = -1
				continue
			}
			if para >= 0 && setextLevel(inner) > 0 {
				var parts []string
				for k := para; k < i; k++ {
					parts = append(parts, strings.TrimSpace(o.text(o.lines[k])))
				}
				o.addHeading(setextLevel(inner), strings.Join(parts, " "), para, i)
				para = -1
				continue
			}
			if startsBlock(inner) {
				para = -1
				continue
			}
		}
		if para < 0 {
			para = i
		}
	}
	// Sections end at the next heading of the same or a higher level.
	for i := range o.heads {
		o.heads[i].end = len(o.raw)
		for j := i + 1; j < len(o.heads); j++ {
			if o.heads[j].level <= o.heads[i].level {
				o.heads[i].end = o.heads[j].start
				break
			}
		}
	}
}

func (o *outline) addHeading(level int, text string, first, last int) {
	h := heading{level: level, text: text, lineNo: first + 1, start: o.lines[first].start, body: o.lines[last].next, parent: -1}
	for p := len(o.heads) - 1; p >= 0; p = o.heads[p].parent {
		if o.heads[p].level < level {
			h.parent = p
			break
		}
	}
	o.heads = append(o.heads, h)
}

// unindent strips up to three leading spaces; indented is true for a line
// indented four columns or more (or by a tab), which is no heading.
func unindent(t string) (string, bool) {
	n := 0
	for n < len(t) && n < 4 && t[n] == ' ' {
		n++
	}
	if n == 4 || strings.HasPrefix(t[n:], "\t") {
		return t, true
	}
	return t[n:], false
}

// openFence returns the character of the code fence a line opens (``` or
// ~~~, three or more), or 0.
func openFence(t string) byte {
	if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return 0
	}
	c := t[0]
	n := len(t) - len(strings.TrimLeft(t, string(c)))
	if n < 3 {
		return 0
	}
	if c == '`' && strings.ContainsRune(t[n:], '`') {
		return 0 // an info string with a backtick: not a fence
	}
	return c
}

// closesFence reports whether t closes a fence of c at least n long.
func closesFence(t string, c byte, n int) bool {
	k := len(t) - len(strings.TrimLeft(t, string(c)))
	return k >= n && strings.TrimSpace(t[k:]) == ""
}

// atxHeading reads "## Title ##" (one to six #, then a blank or the end).
func atxHeading(t string) (int, string, bool) {
	n := len(t) - len(strings.TrimLeft(t, "#"))
	if n < 1 || n > 6 || (len(t) > n && t[n] != ' ' && t[n] != '\t') {
		return 0, "", false
	}
	text := strings.TrimSpace(t[n:])
	if closing := strings.TrimRight(text, "#"); closing != text {
		switch {
		case closing == "":
			text = ""
		case strings.HasSuffix(closing, " "), strings.HasSuffix(closing, "\t"):
			text = strings.TrimSpace(closing)
		}
	}
	return n, text, true
}

// setextLevel is 1 for a "===" underline, 2 for "---" (two or more: a
// single "-" is an empty list item), else 0.
func setextLevel(t string) int {
	s := strings.TrimRight(t, " \t")
	switch {
	case s != "" && strings.Trim(s, "=") == "":
		return 1
	case len(s) >= 2 && strings.Trim(s, "-") == "":
		return 2
	}
	return 0
}

// startsBlock reports whether a line starts something that is not
// paragraph text, so a setext underline below it makes no heading: a list
// item, a block quote, a thematic break, a table row or an HTML block.
func startsBlock(t string) bool {
	switch {
	case t == "":
		return true
	case t[0] == '>' || t[0] == '|' || t[0] == '<':
		return true
	case (t[0] == '-' || t[0] == '*' || t[0] == '+') && (len(t) == 1 || t[1] == ' ' || t[1] == '\t'):
		return true
	case isBreak(t):
		return true
	}
	n := 0
	for n < len(t) && n < 9 && t[n] >= '0' && t[n] <= '9' {
		n++
	}
	return n > 0 && n < len(t) && (t[n] == '.' || t[n] == ')') && (n+1 == len(t) || t[n+1] == ' ' || t[n+1] == '\t')
}

// isBreak reports a thematic break: three or more *, - or _ with blanks.
func isBreak(t string) bool {
	s := strings.NewReplacer(" ", "", "\t", "").Replace(t)
	return len(s) >= 3 && (strings.Trim(s, "*") == "" || strings.Trim(s, "-") == "" || strings.Trim(s, "_") == "")
}

// ownEnd is where the text of heading i itself ends: at its first
// subsection, else at the end of its section.
func (o *outline) ownEnd(i int) int {
	if i+1 < len(o.heads) && o.heads[i+1].start < o.heads[i].end {
		return o.heads[i+1].start
	}
	return o.heads[i].end
}

// lastContent returns the offset just after the last line in [from, to)
// that is not blank (its line break included), or from when every line
// there is blank.
func (o *outline) lastContent(from, to int) int {
	pos := from
	for _, l := range o.lines {
		if l.start < from || l.start >= to {
			continue
		}
		if strings.TrimSpace(o.text(l)) != "" {
			pos = l.next
		}
	}
	return pos
}

// firstContent returns the offset of the first line in [from, to) that is
// not blank, or from when every line there is blank.
func (o *outline) firstContent(from, to int) int {
	for _, l := range o.lines {
		if l.start < from || l.start >= to {
			continue
		}
		if strings.TrimSpace(o.text(l)) != "" {
			return l.start
		}
	}
	return from
}

// lineOf returns the 1-based line number of offset pos.
func (o *outline) lineOf(pos int) int {
	return strings.Count(o.raw[:pos], "\n") + 1
}
