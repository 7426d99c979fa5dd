package chunk

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// unit is a run of text that pack never cuts, with the separator that
// goes before it when it follows another unit in one piece.
type unit struct {
	text string
	// inside is true when the unit continues the paragraph of the unit
	// before it (a sentence or word of a split paragraph): a piece
	// boundary there cuts a paragraph, so the next piece gets an overlap.
	inside bool
}

// unitLimit is the size of the largest unit: a unit always fits in a
// piece after an overlap and its separating space.
const unitLimit = MaxChars - OverlapChars - 1

// paragraphs splits s at blank lines. A fenced code block (``` or ~~~) is
// one paragraph even when it holds blank lines. Paragraphs are trimmed of
// surrounding blank lines and trailing spaces; empty ones are dropped.
func paragraphs(s string) []string {
	var out []string
	var cur []string
	fence := ""
	flush := func() {
		p := strings.TrimRight(strings.Join(cur, "\n"), " \t\n")
		p = strings.TrimLeft(p, "\n")
		if strings.TrimSpace(p) != "" {
			out = append(out, p)
		}
		cur = cur[:0]
	}
	for _, line := range strings.Split(s, "\n") {
		if f := fenceMarker(line); f != "" {
			switch {
			case fence == "":
				fence = f
			case closesFence(line, fence):
				fence = ""
			}
			cur = append(cur, line)
			continue
		}
		if fence == "" && strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		cur = append(cur, line)
	}
	flush()
	return out
}

// fenceMarker returns the fence (``` or ~~~, as long as written) that line
// opens or closes, or "".
func fenceMarker(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return ""
	}
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(t) && t[n] == c {
			n++
		}
		if n >= 3 {
			return t[:n]
		}
	}
	return ""
}

// closesFence reports whether line closes the code block opened by fence:
// the same character, at least as many times, and nothing after it.
func closesFence(line, fence string) bool {
	f := fenceMarker(line)
	return f != "" && f[0] == fence[0] && len(f) >= len(fence) &&
		strings.TrimSpace(strings.TrimLeft(line, " ")[len(f):]) == ""
}

// pack packs paragraphs into pieces of at most MaxChars characters,
// joining paragraphs with sep and splitting any paragraph too long for a
// piece (see the package doc).
func pack(paras []string, sep string) []string {
	var units []unit
	for _, p := range paras {
		if runes(p) <= unitLimit {
			units = append(units, unit{text: p})
			continue
		}
		for i, s := range splitLong(p, unitLimit) {
			units = append(units, unit{text: s, inside: i > 0})
		}
	}
	var out []string
	var cur strings.Builder
	curLen := 0
	for _, u := range units {
		n := runes(u.text)
		join := sep
		if u.inside {
			join = " "
		}
		switch {
		case curLen == 0:
			cur.WriteString(u.text)
			curLen = n
		case curLen+runes(join)+n <= MaxChars:
			cur.WriteString(join)
			cur.WriteString(u.text)
			curLen += runes(join) + n
		default:
			prev := cur.String()
			out = append(out, prev)
			cur.Reset()
			curLen = 0
			if u.inside {
				if ov := overlap(prev); ov != "" {
					cur.WriteString(ov)
					cur.WriteString(" ")
					curLen = runes(ov) + 1
				}
			}
			cur.WriteString(u.text)
			curLen += n
		}
	}
	if curLen > 0 {
		out = append(out, cur.String())
	}
	return out
}

// splitLong cuts a paragraph into sentences of at most limit characters;
// a longer sentence is cut at words, a longer word at code points.
func splitLong(p string, limit int) []string {
	var out []string
	for _, s := range sentences(p) {
		if runes(s) <= limit {
			out = append(out, s)
			continue
		}
		out = append(out, packWords(strings.Fields(s), limit)...)
	}
	return out
}

// sentences splits p after ., ! or ? (and any closing quotes or brackets)
// followed by white space. Sentences are trimmed; line breaks inside one
// become spaces.
func sentences(p string) []string {
	var out []string
	start := 0
	rs := []rune(p)
	for i := 0; i < len(rs); i++ {
		if rs[i] != '.' && rs[i] != '!' && rs[i] != '?' {
			continue
		}
		j := i + 1
		for j < len(rs) && strings.ContainsRune(`"')]»”’`, rs[j]) {
			j++
		}
		if j < len(rs) && unicode.IsSpace(rs[j]) {
			if s := strings.Join(strings.Fields(string(rs[start:j])), " "); s != "" {
				out = append(out, s)
			}
			start = j
			i = j
		}
	}
	if s := strings.Join(strings.Fields(string(rs[start:])), " "); s != "" {
		out = append(out, s)
	}
	return out
}

// packWords packs words into runs of at most limit characters joined by
// spaces, cutting a word longer than limit at code points.
func packWords(words []string, limit int) []string {
	var out []string
	cur := ""
	for _, w := range words {
		for runes(w) > limit {
			if cur != "" {
				out = append(out, cur)
				cur = ""
			}
			head, rest := cutRunes(w, limit)
			out = append(out, head)
			w = rest
		}
		switch {
		case w == "":
		case cur == "":
			cur = w
		case runes(cur)+1+runes(w) <= limit:
			cur += " " + w
		default:
			out = append(out, cur)
			cur = w
		}
	}
	if cur != "" {
		out = append(out, cur)
	}
	return out
}

// cutRunes splits s after n code points.
func cutRunes(s string, n int) (string, string) {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i], s[i:]
}

// overlap returns the end of prev to repeat at the start of the next
// piece: at most OverlapChars characters, starting after a sentence end
// when the window holds one, else after a space; "" when the window has
// no boundary at all (a single huge word).
func overlap(prev string) string {
	rs := []rune(prev)
	if len(rs) <= OverlapChars {
		return ""
	}
	win := rs[len(rs)-OverlapChars:]
	// After a sentence end inside the window.
	for i := 0; i+1 < len(win); i++ {
		if (win[i] == '.' || win[i] == '!' || win[i] == '?') && unicode.IsSpace(win[i+1]) {
			if s := strings.TrimSpace(string(win[i+1:])); s != "" {
				return s
			}
		}
	}
	// Else after the first space (the first word may be cut).
	for i, r := range win {
		if unicode.IsSpace(r) {
			return strings.TrimSpace(string(win[i+1:]))
		}
	}
	return ""
}
