package vault

import "bytes"

// maskInto returns a copy of text, in buf's array when it is large enough
// (parseNote reuses one per note: see maskBuffers), in which everything
// that is not prose for Obsidian is blanked with spaces: fenced and
// indented code blocks, inline code spans, %% comments %% and <!-- HTML
// comments -->. Newlines are kept,
// so offsets and line numbers in the result are those of text. Links and
// tags are then searched in the masked copy and read from the original.
//
// It runs in time linear in len(text): code spans are matched through a
// per-paragraph table of backtick runs, and comments jump to their closer.
func maskInto(buf []byte, text string) []byte {
	m := append(buf[:0], text...)
	maskCodeBlocks(m)
	maskInline(m)
	return m
}

// blank overwrites m[from:to] with spaces, keeping line breaks.
func blank(m []byte, from, to int) {
	for i := from; i < to && i < len(m); i++ {
		if m[i] != '\n' && m[i] != '\r' {
			m[i] = ' '
		}
	}
}

// codeBlockState tracks the block structure maskCodeBlocks needs: whether a
// fence is open, whether lines belong to a list (where deep indentation is
// list content, not code) and whether the previous line was paragraph text
// (which an indented line continues rather than starting code).
type codeBlockState struct {
	fenceChar byte // '`' or '~' while a fence is open, else 0
	fenceLen  int
	inList    bool
	prevBlank bool // previous line blank (or start of text)
	prevPara  bool // previous line was paragraph text
}

// maskCodeBlocks blanks fenced code blocks (``` or ~~~, closed by a fence of
// the same character at least as long; an unclosed fence runs to the end, as
// in CommonMark) and indented code blocks (4+ columns of indentation after a
// blank line, outside lists). Block quote markers are looked through, so a
// fence inside a callout is still a fence.
func maskCodeBlocks(m []byte) {
	st := codeBlockState{prevBlank: true}
	for start := 0; start < len(m); {
		end := start
		for end < len(m) && m[end] != '\n' {
			end++
		}
		st.line(m, start, end)
		start = end + 1
	}
}

func (st *codeBlockState) line(m []byte, start, end int) {
	content := start
	// Look through block quote markers ("> > text").
	for {
		p := content
		for p < end && p-content < 3 && m[p] == ' ' {
			p++
		}
		if p < end && m[p] == '>' {
			content = p + 1
			if content < end && m[content] == ' ' {
				content++
			}
			continue
		}
		break
	}
	indent, first := indentation(m, content, end)
	isBlank := first >= end

	if st.fenceChar != 0 {
		if closesFence(m, first, end, st.fenceChar, st.fenceLen) {
			st.fenceChar = 0
		}
		blank(m, start, end)
		st.prevBlank, st.prevPara = false, false
		return
	}
	if isBlank {
		st.prevBlank, st.prevPara = true, false
		return
	}
	if indent >= 4 && !st.inList && !st.prevPara {
		blank(m, start, end) // indented code
		st.prevBlank = false
		return
	}
	if indent <= 3 || st.inList {
		if c, n := fenceOpener(m, first, end); n > 0 {
			st.fenceChar, st.fenceLen = c, n
			blank(m, start, end)
			st.prevBlank, st.prevPara = false, false
			return
		}
	}
	switch {
	case isListItem(m, first, end):
		st.inList = true
		st.prevPara = true
	case isHeading(m, first, end):
		st.inList = st.inList && indent > 0
		st.prevPara = false
	default:
		if st.prevBlank && indent < 2 {
			st.inList = false // a paragraph after a blank line ends the list
		}
		st.prevPara = true
	}
	st.prevBlank = false
}

// indentation returns the column width of the leading blanks of m[from:to]
// (a tab advances to the next multiple of 4) and the index of the first
// non-blank byte (to when the line is blank).
func indentation(m []byte, from, to int) (width, first int) {
	for first = from; first < to; first++ {
		switch m[first] {
		case ' ':
			width++
		case '\t':
			width += 4 - width%4
		case '\r':
			// part of a CRLF line ending: counts as blank
		default:
			return width, first
		}
	}
	return width, to
}

// fenceOpener reports the fence character and length when m[first:end]
// opens a fenced code block.
func fenceOpener(m []byte, first, end int) (byte, int) {
	if first >= end || (m[first] != '`' && m[first] != '~') {
		return 0, 0
	}
	c := m[first]
	n := 0
	for first+n < end && m[first+n] == c {
		n++
	}
	if n < 3 {
		return 0, 0
	}
	if c == '`' && bytes.IndexByte(m[first+n:end], '`') >= 0 {
		return 0, 0 // a backtick fence's info string has no backticks
	}
	return c, n
}

// closesFence reports whether m[first:end] closes a fence of c repeated at
// least n times: only the fence characters and trailing blanks.
func closesFence(m []byte, first, end int, c byte, n int) bool {
	k := 0
	for first+k < end && m[first+k] == c {
		k++
	}
	if k < n {
		return false
	}
	for p := first + k; p < end; p++ {
		if m[p] != ' ' && m[p] != '\t' && m[p] != '\r' {
			return false
		}
	}
	return true
}

// isListItem reports whether m[first:end] starts with a list marker:
// "-", "*" or "+" or up to nine digits with "." or ")", then a blank or the
// end of the line.
func isListItem(m []byte, first, end int) bool {
	p := first
	switch {
	case p < end && (m[p] == '-' || m[p] == '*' || m[p] == '+'):
		p++
	default:
		d := 0
		for p < end && m[p] >= '0' && m[p] <= '9' && d < 9 {
			p++
			d++
		}
		if d == 0 || p >= end || (m[p] != '.' && m[p] != ')') {
			return false
		}
		p++
	}
	return p >= end || m[p] == ' ' || m[p] == '\t' || m[p] == '\r'
}

// isHeading reports whether m[first:end] is an ATX heading ("# Title").
func isHeading(m []byte, first, end int) bool {
	p := first
	for p < end && m[p] == '#' && p-first < 6 {
		p++
	}
	return p > first && (p >= end || m[p] == ' ' || m[p] == '\t' || m[p] == '\r')
}

// maskInline blanks inline code spans and comments in m, whose code blocks
// are already blank. A run of n backticks opens a span closed by the next
// run of exactly n backticks in the same paragraph; without one the
// backticks are literal. "%%" and "<!--" open comments that run to the next
// "%%" or "-->", or to the end of the text when unclosed (Obsidian hides the
// rest of the note in that case too). Whichever opener comes first wins, so
// "%%" inside a code span is literal and backticks inside a comment are too.
func maskInline(m []byte) {
	var para backtickRuns
	for i := 0; i < len(m); {
		switch c := m[i]; {
		case c == '`':
			run := para.at(m, i)
			if closer := para.next[run]; closer >= 0 {
				end := para.start[closer] + para.length[closer]
				blank(m, i, end)
				i = end
			} else {
				i += para.length[run]
			}
		case c == '%' && i+1 < len(m) && m[i+1] == '%':
			end := len(m)
			if k := bytes.Index(m[i+2:], []byte("%%")); k >= 0 {
				end = i + 2 + k + 2
			}
			blank(m, i, end)
			i = end
		case c == '<' && bytes.HasPrefix(m[i:], []byte("<!--")):
			end := len(m)
			if k := bytes.Index(m[i+4:], []byte("-->")); k >= 0 {
				end = i + 4 + k + 3
			}
			blank(m, i, end)
			i = end
		default:
			i++
		}
	}
}

// backtickRuns holds the backtick runs of one paragraph: where each starts,
// how long it is, and the index of the next run of the same length (-1 when
// none), so matching an opener to its closer is a table lookup.
type backtickRuns struct {
	from, to int // the paragraph: m[from:to]
	start    []int
	length   []int
	next     []int
	cursor   int // index of the run at or after the last position asked
}

func (b *backtickRuns) covers(i int) bool { return b.to > b.from && i >= b.from && i < b.to }

// load indexes the runs of the paragraph from position i (the scan has
// already passed everything before i) to the next blank line or the end.
func (b *backtickRuns) load(m []byte, i int) {
	b.from = i
	b.to = paragraphEnd(m, i)
	b.start, b.length, b.next = b.start[:0], b.length[:0], b.next[:0]
	b.cursor = 0
	for p := b.from; p < b.to; {
		if m[p] != '`' {
			p++
			continue
		}
		q := p
		for q < b.to && m[q] == '`' {
			q++
		}
		b.start = append(b.start, p)
		b.length = append(b.length, q-p)
		p = q
	}
	b.next = append(b.next, make([]int, len(b.start))...)
	last := map[int]int{}
	for k := len(b.start) - 1; k >= 0; k-- {
		if j, ok := last[b.length[k]]; ok {
			b.next[k] = j
		} else {
			b.next[k] = -1
		}
		last[b.length[k]] = k
	}
}

// at returns the index of the run that starts at position i, indexing the
// paragraph around i first when needed. Positions are asked in increasing
// order, so a cursor finds the run in amortised O(1).
func (b *backtickRuns) at(m []byte, i int) int {
	if b.covers(i) {
		for b.cursor < len(b.start) && b.start[b.cursor] < i {
			b.cursor++
		}
		if b.cursor < len(b.start) && b.start[b.cursor] == i {
			return b.cursor
		}
	}
	b.load(m, i)
	return 0
}

// paragraphEnd returns the index of the first blank line at or after i (the
// position of its first byte), or len(m).
func paragraphEnd(m []byte, i int) int {
	lineStart := -1
	for p := i; p < len(m); p++ {
		switch m[p] {
		case '\n':
			if lineStart >= 0 {
				return lineStart
			}
			lineStart = p + 1
		case ' ', '\t', '\r':
		default:
			lineStart = -1
		}
	}
	return len(m)
}
