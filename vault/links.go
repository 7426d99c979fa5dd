package vault

import (
	"bytes"
	"net/url"
	"path"
	"regexp"
	"strings"

	"github.com/vaultgraph/vaultgraph/core"
	"golang.org/x/text/unicode/norm"
)

// linkSpan is one link found in a note's text with where it was written,
// so the writer can rewrite it in place when its target is renamed.
type linkSpan struct {
	link       core.Link
	written    string // the target as written: "Target" of [[Target#h|a]], "../x.md" of [x](../x.md)
	start, end int    // the whole link (Raw) in the text
	// tStart:tEnd is the part a rename replaces: the target of a wikilink
	// (trimmed, before "#" and "|"), the path of a markdown destination
	// (before "?" and "#").
	tStart, tEnd int
	markdown     bool
	angle        bool // markdown destination written as <path>
	// fixed marks a link whose offsets are not in its file's bytes (a
	// canvas's cards, parseCanvas): a rename rewrites such links through
	// applyCanvasRewrite, not in place.
	fixed bool
	// card marks a canvas's file card: its text is a vault path, which a
	// rename rewrites to the moved note's whole new path.
	card bool
}

// LinkKey returns the resolution key of a link target written by name or
// by vault path: lowercased, without a leading "/" or "./" and without a
// ".md" extension, in Unicode NFC. "\" is an ordinary character, never a
// separator. A note answers to a key when the key is one of its Keys (see
// NoteKeys). A target written relative to its note ("./x", "../x") has
// the key linkKeyIn gives.
func LinkKey(target string) string {
	k := norm.NFC.String(strings.ToLower(strings.TrimSpace(target)))
	for {
		switch {
		case strings.HasPrefix(k, "/"):
			k = k[1:]
		case strings.HasPrefix(k, "./"):
			k = k[2:]
		default:
			return strings.TrimSuffix(k, ".md")
		}
	}
}

// isRelative reports whether a link target as written is relative to the
// linking note's folder: it starts with "./" or "../" (or is "." or "..").
func isRelative(target string) bool {
	return strings.HasPrefix(target, "./") || strings.HasPrefix(target, "../") || target == "." || target == ".."
}

// linkKeyIn is the resolution key of a link target as written (a
// wikilink's target, a markdown link's URL-decoded path) in a note of
// folder dir ("" at the root): a target relative to the note ("./x",
// "../B/x") is joined to dir first, so its key is the vault path it names
// ("" when it names a folder: "./", "..", "a/.."); any other is LinkKey's.
// A key joined above the root starts with "../" and no note answers to it.
func linkKeyIn(target, dir string) string {
	t := strings.TrimSpace(target)
	if !isRelative(t) {
		return LinkKey(t)
	}
	c := path.Clean(t)
	if c == "." || c == ".." || strings.HasSuffix(c, "/..") || strings.HasSuffix(t, "/") {
		return ""
	}
	return LinkKey(path.Join(dir, c))
}

// scanWikilinks finds [[...]] and ![[...]] in masked (a masked copy of
// text, or text itself) and reads them from text; offsets are shifted by
// base, and appended to out. dir is the folder of the note (relative
// targets are joined to it). A link stays on one line. Self links
// ([[#heading]]) and empty links are left out; a link to an attachment or
// a canvas ([[pic.png]], ![[board.canvas]]) is a link like any other
// (core.KindOf), whose key keeps the file's extension.
func scanWikilinks(out []linkSpan, masked []byte, text string, base int, dir string) []linkSpan {
	for i := 0; i+1 < len(masked); {
		j := indexFrom(masked, i, "[[")
		if j < 0 {
			break
		}
		k := j + 2
		for k+1 < len(masked) && masked[k] != '\n' && !(masked[k] == ']' && masked[k+1] == ']') && !(masked[k] == '[' && masked[k+1] == '[') {
			k++
		}
		if k+1 >= len(masked) || masked[k] != ']' || masked[k+1] != ']' {
			i = k // a newline, "[[" or the end: start again from there
			continue
		}
		start := j
		embed := j > 0 && masked[j-1] == '!'
		if embed {
			start--
		}
		if s, ok := wikilink(text, j+2, k, embed, dir); ok {
			s.start, s.end = base+start, base+k+2
			s.tStart += base
			s.tEnd += base
			s.link.Raw = text[start : k+2]
			out = append(out, s)
		}
		i = k + 2
	}
	return out
}

// wikilink parses the inside text[from:to] of a wikilink.
func wikilink(text string, from, to int, embed bool, dir string) (linkSpan, bool) {
	inner := text[from:to]
	targetPart, alias, hasAlias := strings.Cut(inner, "|")
	if hasAlias && strings.HasSuffix(targetPart, `\`) {
		targetPart = targetPart[:len(targetPart)-1] // "\|" escapes the pipe inside tables
	}
	file, heading, _ := strings.Cut(targetPart, "#")
	trimmed := strings.TrimSpace(file)
	if trimmed == "" {
		return linkSpan{}, false
	}
	lead := len(file) - len(strings.TrimLeft(file, " \t"))
	s := linkSpan{
		written: trimmed,
		tStart:  from + lead,
		tEnd:    from + lead + len(trimmed),
		link: core.Link{
			Key:     linkKeyIn(trimmed, dir),
			Alias:   strings.TrimSpace(alias),
			Heading: strings.TrimSpace(heading),
			Embed:   embed,
		},
	}
	return s, s.link.Key != ""
}

var urlSchemeRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// scanMarkdownLinks finds [text](dest) and ![text](dest) in masked whose
// destination is a local note: no URL scheme (http:, mailto:,
// obsidian:, ...), not "//host", not a bare "#anchor". An attachment's
// path (![](../img/pic.png)) is a link like a note's.
// The destination's path (before "?" and "#") is URL-decoded and keyed as
// a wikilink target is (linkKeyIn, with or without ".md"): relative to
// the folder of notePath when it starts with "./" or "../", else by name
// or vault path. Bracket and parenthesis scans stop at "[", which keeps
// the scan linear.
func scanMarkdownLinks(out []linkSpan, masked []byte, text string, base int, notePath string) []linkSpan {
	for i := 0; i < len(masked); i++ {
		if masked[i] != '[' {
			continue
		}
		j := i + 1
		for j < len(masked) && masked[j] != ']' && masked[j] != '\n' && masked[j] != '[' {
			j++
		}
		if j >= len(masked) || masked[j] != ']' {
			i = j - 1 // resume at the "[" or newline that stopped the scan
			continue
		}
		if j+1 >= len(masked) || masked[j+1] != '(' {
			i = j
			continue
		}
		d, ok := markdownDest(masked, j+2)
		if !ok {
			i = j
			continue
		}
		start := i
		embed := i > 0 && masked[i-1] == '!'
		if embed {
			start--
		}
		if s, ok := markdownLink(text, d, notePath); ok {
			s.start, s.end = base+start, base+d.close+1
			s.tStart, s.tEnd = base+d.pathFrom, base+d.pathTo
			s.link.Raw = text[start : d.close+1]
			s.link.Alias = strings.TrimSpace(text[i+1 : j])
			s.link.Embed = embed
			out = append(out, s)
		}
		i = d.close
	}
	return out
}

// mdDest is the destination of a markdown link as found in the text.
type mdDest struct {
	from, to         int // the destination without <>
	pathFrom, pathTo int // its path part, before "?" and "#"
	angle            bool
	close            int // the closing ")"
}

// markdownDest parses "dest)" or "<dest> "title")" starting at p.
func markdownDest(m []byte, p int) (mdDest, bool) {
	var d mdDest
	for p < len(m) && (m[p] == ' ' || m[p] == '\t') {
		p++
	}
	if p < len(m) && m[p] == '<' {
		d.angle = true
		d.from = p + 1
		for p++; p < len(m) && m[p] != '>' && m[p] != '<' && m[p] != '\n' && m[p] != '['; p++ {
		}
		if p >= len(m) || m[p] != '>' {
			return d, false
		}
		d.to = p
		p++
	} else {
		d.from = p
		depth := 0
	scan:
		for ; p < len(m); p++ {
			switch m[p] {
			case ' ', '\t', '\n', '\r', '[':
				break scan
			case '(':
				depth++
			case ')':
				if depth == 0 {
					break scan
				}
				depth--
			}
		}
		d.to = p
	}
	for p < len(m) && (m[p] == ' ' || m[p] == '\t') {
		p++
	}
	if p < len(m) && (m[p] == '"' || m[p] == '\'' || m[p] == '(') {
		closer := m[p]
		if closer == '(' {
			closer = ')'
		}
		for p++; p < len(m) && m[p] != closer && m[p] != '\n' && m[p] != '['; p++ {
		}
		if p >= len(m) || m[p] != closer {
			return d, false
		}
		p++
		for p < len(m) && (m[p] == ' ' || m[p] == '\t') {
			p++
		}
	}
	if p >= len(m) || m[p] != ')' {
		return d, false
	}
	d.close = p
	d.pathFrom, d.pathTo = d.from, d.to
	for q := d.from; q < d.to; q++ {
		if m[q] == '?' || m[q] == '#' {
			d.pathTo = q
			break
		}
	}
	return d, true
}

// markdownLink turns a parsed destination into a note link, or reports
// false when it is not a link to a local note.
func markdownLink(text string, d mdDest, notePath string) (linkSpan, bool) {
	dest := text[d.from:d.to]
	if dest == "" || strings.HasPrefix(dest, "#") || strings.HasPrefix(dest, "//") || urlSchemeRe.MatchString(dest) {
		return linkSpan{}, false
	}
	rawPath := text[d.pathFrom:d.pathTo]
	p, err := url.PathUnescape(rawPath)
	if err != nil {
		p = rawPath
	}
	p = strings.TrimSpace(p)
	if p == "" || strings.HasSuffix(p, "/") {
		return linkSpan{}, false
	}
	var heading string
	if _, frag, ok := strings.Cut(dest, "#"); ok {
		if h, err := url.PathUnescape(frag); err == nil {
			heading = h
		} else {
			heading = frag
		}
	}
	key := linkKeyIn(p, dirOf(notePath))
	if key == "" || key == "." {
		return linkSpan{}, false
	}
	return linkSpan{
		written:  p,
		markdown: true,
		angle:    d.angle,
		link:     core.Link{Key: key, Heading: strings.TrimSpace(heading)},
	}, true
}

// indexFrom returns the index of sep in m at or after i, or -1.
func indexFrom(m []byte, i int, sep string) int {
	if k := bytes.Index(m[i:], []byte(sep)); k >= 0 {
		return i + k
	}
	return -1
}
