package semantic

import (
	"bytes"
	"math"
	"strings"
	"unicode/utf8"
)

// TextVersion names how a note's text is shaped before it is embedded
// (AppendProse, Windows). It is part of the model id under which note
// vectors are stored (NoteModel), so a change of shaping makes every
// stored vector stale and the indexer re-embeds the vault in the
// background, as after a change of model. "prose1" (issue 49.5): prose
// only, long notes in windows whose vectors are averaged; "prose2": the
// windows weighed by their place (CombineWindows).
const TextVersion = "prose2"

// NoteModel is the model id note vectors of e are stored under: e's model
// and TextVersion. Queries are embedded by e as they are; only the notes'
// side is shaped.
func NoteModel(e interface{ Model() string }) string { return e.Model() + "+" + TextVersion }

// MaxProseInput bounds how much of a note's content is read for its
// vector: the windows a note gets hold a few KB of prose, so a 5 MB note
// costs what 64 KB do (keyword search still reads all of it).
const MaxProseInput = 64 << 10

// MaxWindows bounds the windows a long note is embedded in (each at most
// the model's MaxTokens): ~1,000 tokens of prose, 4× a single window's
// transformer work at most.
const MaxWindows = 4

// proseBlock is a paragraph of prose, or a heading (level > 0).
type proseBlock struct {
	level int
	text  string
}

// AppendProse appends to dst what is embedded of a note's body: its prose.
// Left out: images and embeds (![alt](url), ![[file]]), badges (an image
// inside a link), HTML tags and comments, Obsidian comments (%% … %%),
// bare URLs, and every line of a code block but its first; links are
// reduced to their text ([text](url) → text, [[target|alias]] → alias,
// [[target#heading]] → "target heading"); heading marks, emphasis
// marks, backticks, quote marks and table rules are dropped. Paragraphs
// are separated by a blank line. Only the first MaxProseInput bytes of
// content are read.
func AppendProse(dst []byte, content string) []byte {
	for i, b := range proseBlocks(content) {
		if i > 0 {
			dst = append(dst, "\n\n"...)
		}
		dst = append(dst, b.text...)
	}
	return dst
}

// Prose is AppendProse as a string.
func Prose(content string) string { return string(AppendProse(nil, content)) }

// proseBlocks cuts content's prose (see AppendProse) into paragraphs and
// headings.
func proseBlocks(content string) []proseBlock {
	if len(content) > MaxProseInput {
		cut := MaxProseInput
		for cut > 0 && !utf8.RuneStart(content[cut]) {
			cut--
		}
		content = content[:cut]
	}
	var (
		blocks    []proseBlock
		para      []byte
		fence     string // the fence that opened the code block we are in
		fenceKept bool   // its first line was kept
		comment   bool   // inside %% … %%
		htmlCmt   bool   // inside <!-- … -->
		lineBuf   []byte // a line's prose, reused
	)
	flush := func() {
		if t := bytes.TrimSpace(para); len(t) > 0 {
			blocks = append(blocks, proseBlock{text: string(t)})
		}
		para = para[:0]
	}
	for line := range strings.Lines(content) {
		line = strings.TrimRight(line, "\r\n")
		trimmed := strings.TrimLeft(line, " \t")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
				flush()
				continue
			}
			if !fenceKept && strings.TrimSpace(line) != "" {
				fenceKept = true
				para = append(para, strings.TrimSpace(line)...)
			}
			continue
		}
		if !comment && !htmlCmt && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")) {
			flush()
			n := 0
			for n < len(trimmed) && trimmed[n] == trimmed[0] {
				n++
			}
			fence, fenceKept = trimmed[:n], false
			continue
		}
		lineBuf, comment, htmlCmt = inlineProse(lineBuf[:0], line, comment, htmlCmt)
		text := string(bytes.TrimSpace(lineBuf))
		level := 0
		if !comment && !htmlCmt {
			level, text = headingOf(text)
		}
		switch {
		case text == "" || isRule(text):
			if len(para) > 0 && (text == "" && strings.TrimSpace(line) == "") {
				flush()
			}
		case level > 0:
			flush()
			blocks = append(blocks, proseBlock{level: level, text: text})
		default:
			if len(para) > 0 {
				para = append(para, '\n')
			}
			para = append(para, text...)
		}
	}
	flush()
	return blocks
}

// headingOf returns a heading line's level and text (marks dropped), or 0
// and s.
func headingOf(s string) (int, string) {
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(s) && s[n] != ' ' && s[n] != '\t') {
		return 0, s
	}
	return n, strings.TrimSpace(strings.TrimRight(s[n:], "# "))
}

// isRule reports a line of table rules, thematic breaks or list marks
// only (nothing to read).
func isRule(s string) bool {
	for _, r := range s {
		switch r {
		case '-', '|', ':', '=', '*', '_', ' ', '\t', '+', '>':
		default:
			return false
		}
	}
	return true
}

// inlineProse appends line's prose to dst; comment and htmlCmt say
// whether the line starts inside %% … %% or <!-- … -->, and the results
// whether it ends inside one.
func inlineProse(dst []byte, line string, comment, htmlCmt bool) ([]byte, bool, bool) {
	i := 0
	// Quote and callout marks: "> [!note] Title" reads "Title".
	if !comment && !htmlCmt {
		t := strings.TrimLeft(line, " \t")
		quoted := false
		for strings.HasPrefix(t, ">") {
			t, quoted = strings.TrimLeft(t[1:], " \t"), true
		}
		if quoted && strings.HasPrefix(t, "[!") {
			if end := strings.IndexByte(t, ']'); end > 0 {
				t = strings.TrimLeft(strings.TrimLeft(t[end+1:], "+-"), " ")
			}
		}
		line = t
	}
	for i < len(line) {
		if comment {
			end := strings.Index(line[i:], "%%")
			if end < 0 {
				return dst, true, false
			}
			i += end + 2
			comment = false
			continue
		}
		if htmlCmt {
			end := strings.Index(line[i:], "-->")
			if end < 0 {
				return dst, false, true
			}
			i += end + 3
			htmlCmt = false
			continue
		}
		c := line[i]
		switch {
		case strings.HasPrefix(line[i:], "%%"):
			comment = true
			i += 2
			continue
		case strings.HasPrefix(line[i:], "<!--"):
			htmlCmt = true
			i += 4
			continue
		case c == '!' && strings.HasPrefix(line[i+1:], "[["):
			if end := strings.Index(line[i+3:], "]]"); end >= 0 {
				i += 3 + end + 2
				continue
			}
		case c == '!' && i+1 < len(line) && line[i+1] == '[':
			if n := linkLen(line[i+1:]); n > 0 {
				i += 1 + n
				continue
			}
		case c == '[' && strings.HasPrefix(line[i:], "[["):
			if end := strings.Index(line[i+2:], "]]"); end >= 0 {
				inner := line[i+2 : i+2+end]
				if _, alias, ok := strings.Cut(inner, "|"); ok {
					dst = append(dst, alias...)
				} else {
					for k := 0; k < len(inner); k++ { // target#heading, target#^block: words
						switch {
						case inner[k] == '#' || inner[k] == '^' && k > 0 && inner[k-1] == '#':
							if inner[k] == '#' {
								dst = append(dst, ' ')
							}
						default:
							dst = append(dst, inner[k])
						}
					}
				}
				i += 2 + end + 2
				continue
			}
		case c == '[':
			if n := linkLen(line[i:]); n > 0 {
				text := line[i+1 : i+linkTextEnd(line[i:])]
				dst, _, _ = inlineProse(dst, text, false, false)
				i += n
				continue
			}
		case c == '<':
			if end := strings.IndexByte(line[i:], '>'); end > 0 && i+1 < len(line) && isTagStart(line[i+1]) {
				i += end + 1
				dst = append(dst, ' ')
				continue
			}
		case (c == 'h' || c == 'w') && (i == 0 || isSpaceOrOpen(line[i-1])) &&
			(strings.HasPrefix(line[i:], "https://") || strings.HasPrefix(line[i:], "http://") || strings.HasPrefix(line[i:], "www.")):
			for i < len(line) && line[i] != ' ' && line[i] != '\t' && line[i] != ')' {
				i++
			}
			continue
		case c == '`' || c == '*' || c == '=' && strings.HasPrefix(line[i:], "=="):
			i++
			continue
		case c == '~' && strings.HasPrefix(line[i:], "~~"):
			i += 2
			continue
		case c == '_' && (i+1 < len(line) && line[i+1] == '_' || i == 0 || isSpaceOrOpen(line[i-1]) || i+1 == len(line) || line[i+1] == ' '):
			i++
			continue
		case c == '|':
			dst = append(dst, ' ')
			i++
			continue
		case c == '&' && strings.HasPrefix(line[i:], "&nbsp;"):
			dst = append(dst, ' ')
			i += 6
			continue
		}
		dst = append(dst, c)
		i++
	}
	return dst, comment, htmlCmt
}

// linkLen returns the length of the markdown link or image [text](url)
// that s starts with (nested brackets in the text, one level of
// parentheses in the url), or 0.
func linkLen(s string) int {
	end := linkTextEnd(s)
	if end <= 0 || end+1 >= len(s) || s[end+1] != '(' {
		return 0
	}
	depth := 0
	for j := end + 1; j < len(s); j++ {
		switch s[j] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return 0
}

// linkTextEnd returns the index of the ']' closing the '[' s starts with,
// or -1.
func linkTextEnd(s string) int {
	depth := 0
	for j := 0; j < len(s); j++ {
		switch s[j] {
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

func isTagStart(c byte) bool {
	return c == '/' || c == '!' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isSpaceOrOpen(c byte) bool {
	return c == ' ' || c == '\t' || c == '(' || c == '"' || c == '\''
}

// Windows returns the texts a note is embedded from: its title and prose
// (AppendProse), cut into windows of at most maxTokens tokens (tokens
// counts a text's; [CLS] and [SEP] are the caller's to leave room for),
// each starting with the title and the headings its first paragraph sits
// under, at most maxWindows of them. A note that fits is one window: the
// title, a blank line, the prose. tokens nil (a model without a token
// limit known here) gives that one window whatever its length.
func Windows(title, content string, tokens func(string) int, maxTokens, maxWindows int) []string {
	blocks := proseBlocks(content)
	whole := func() string {
		var b []byte
		if title != "" {
			b = append(b, title...)
			if len(blocks) > 0 {
				b = append(b, "\n\n"...)
			}
		}
		for i, bl := range blocks {
			if i > 0 {
				b = append(b, "\n\n"...)
			}
			b = append(b, bl.text...)
		}
		return string(b)
	}
	if tokens == nil || maxTokens <= 0 || maxWindows <= 1 {
		return []string{whole()}
	}
	if w := whole(); tokens(w) <= maxTokens {
		return []string{w}
	}
	var (
		windows []string
		path    []proseBlock // headings above the current block
		cur     strings.Builder
		curTok  int
		curBody bool // the window holds prose beyond its header
	)
	header := func() {
		cur.Reset()
		cur.WriteString(title)
		curTok = tokens(title)
		for _, h := range path {
			cur.WriteString("\n")
			cur.WriteString(h.text)
			curTok += tokens(h.text)
		}
		curBody = false
	}
	emit := func() bool {
		if curBody {
			windows = append(windows, cur.String())
		}
		return len(windows) < maxWindows
	}
	header()
	for _, b := range blocks {
		if b.level > 0 {
			for len(path) > 0 && path[len(path)-1].level >= b.level {
				path = path[:len(path)-1]
			}
		}
		n := tokens(b.text)
		if curBody && curTok+n > maxTokens {
			if !emit() {
				return windows
			}
			header()
		}
		if b.level > 0 {
			path = append(path, b)
			if !curBody { // the header carries it already
				cur.WriteString("\n")
				cur.WriteString(b.text)
				curTok += n
				continue
			}
		}
		if curTok+n <= maxTokens {
			cur.WriteString("\n\n")
			cur.WriteString(b.text)
			curTok += n
			curBody = true
			continue
		}
		// A paragraph longer than a window: cut it at words.
		words := strings.Fields(b.text)
		for len(words) > 0 {
			room := maxTokens - curTok
			take := 0
			used := 0
			for take < len(words) {
				t := tokens(words[take])
				if used+t > room && take > 0 {
					break
				}
				used += t
				take++
			}
			cur.WriteString("\n\n")
			cur.WriteString(strings.Join(words[:take], " "))
			curTok += used
			curBody = true
			words = words[take:]
			if len(words) > 0 {
				if !emit() {
					return windows
				}
				header()
			}
		}
	}
	emit()
	return windows
}

// CombineWindows returns a note's vector from its windows' vectors, in
// the note's order (Windows): the one vector, or the normalised sum of the
// normalised window vectors with window k (from 0) weighing 1/(k+1), so
// the note's opening, where most notes say what they are about, counts
// most and every later window still adds what it says (zero when every
// window's vector is). Measured against the plain mean on every eval
// corpus: docs/SEARCH.md, "Long notes are read by what they say".
func CombineWindows(vecs [][]float32) []float32 {
	if len(vecs) == 1 {
		return vecs[0]
	}
	var out []float32
	for k, v := range vecs {
		if len(v) == 0 {
			continue
		}
		if out == nil {
			out = make([]float32, len(v))
		}
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if n == 0 || len(v) != len(out) {
			continue
		}
		scale := float32(1 / (math.Sqrt(n) * float64(k+1)))
		for j, x := range v {
			out[j] += x * scale
		}
	}
	var n float64
	for _, x := range out {
		n += float64(x) * float64(x)
	}
	if n > 0 {
		scale := float32(1 / math.Sqrt(n))
		for j := range out {
			out[j] *= scale
		}
	}
	return out
}
