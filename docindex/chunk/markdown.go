package chunk

import "strings"

// HeaderSeparator joins heading titles in a HeaderPath.
const HeaderSeparator = " > "

// Markdown cuts a markdown document at its ATX headings (# to ######,
// outside fenced code blocks). Rules:
//   - A piece's HeaderPath is the titles of the heading it belongs to and
//     of that heading's ancestors, outermost first: "A > B > C". A heading
//     closes every open heading of its level or deeper.
//   - A section's content starts with its heading line, so a piece reads
//     as it does in the file.
//   - Text before the first heading is kept, as a section with an empty
//     HeaderPath.
//   - A leading YAML frontmatter block (--- ... ---) is metadata, not text:
//     it is left out.
//   - A section with nothing but its heading (a title directly followed by
//     a sub-heading) gives no piece of its own; its title lives on in the
//     HeaderPath of the sections under it.
//   - A document of nothing but headings is one piece of its heading
//     lines with an empty HeaderPath, so it can still be found.
//   - Setext headings (underlined with === or ---) are ordinary text.
//   - A section longer than MaxChars is split by the size rules.
func Markdown(s string) []Piece {
	s = stripFrontmatter(normalize(s))
	type heading struct {
		level int
		title string
	}
	var (
		stack []heading
		lines []string
		out   []Piece
		fence string
	)
	path := func() string {
		var titles []string
		for _, h := range stack {
			if h.title != "" {
				titles = append(titles, h.title)
			}
		}
		return strings.Join(titles, HeaderSeparator)
	}
	var headLine string
	emit := func() {
		body := strings.Join(lines, "\n")
		lines = nil
		if strings.TrimSpace(body) == "" {
			return
		}
		text := body
		if headLine != "" {
			text = headLine + "\n" + body
		}
		hp := path()
		for _, c := range pack(paragraphs(text), "\n\n") {
			out = append(out, Piece{Content: c, HeaderPath: hp})
		}
	}
	for _, line := range strings.Split(s, "\n") {
		if f := fenceMarker(line); f != "" {
			switch {
			case fence == "":
				fence = f
			case closesFence(line, fence):
				fence = ""
			}
			lines = append(lines, line)
			continue
		}
		if fence == "" {
			if level, title, ok := atxHeading(line); ok {
				emit()
				for len(stack) > 0 && stack[len(stack)-1].level >= level {
					stack = stack[:len(stack)-1]
				}
				stack = append(stack, heading{level, title})
				headLine = strings.TrimSpace(line)
				continue
			}
		}
		lines = append(lines, line)
	}
	emit()
	if len(out) == 0 && strings.TrimSpace(s) != "" {
		// Only headings: keep them, rather than index nothing.
		for _, c := range pack(paragraphs(s), "\n\n") {
			out = append(out, Piece{Content: c})
		}
	}
	return out
}

// atxHeading parses an ATX heading line: up to three spaces, one to six
// #, then a space or the end of the line. The title drops a closing
// sequence of #.
func atxHeading(line string) (level int, title string, ok bool) {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return 0, "", false
	}
	for level < len(t) && t[level] == '#' {
		level++
	}
	if level == 0 || level > 6 {
		return 0, "", false
	}
	rest := t[level:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return 0, "", false
	}
	rest = strings.TrimSpace(rest)
	if trimmed := strings.TrimRight(rest, "#"); trimmed != rest {
		if trimmed == "" {
			rest = ""
		} else if strings.HasSuffix(trimmed, " ") || strings.HasSuffix(trimmed, "\t") {
			rest = strings.TrimSpace(trimmed)
		}
	}
	return level, rest, true
}

// stripFrontmatter drops a YAML frontmatter block at the very start of s.
func stripFrontmatter(s string) string {
	if !strings.HasPrefix(s, "---\n") {
		return s
	}
	rest := s[4:]
	for off := 0; off < len(rest); {
		end := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if end >= 0 {
			line = rest[off : off+end]
		}
		if t := strings.TrimRight(line, " \t"); t == "---" || t == "..." {
			if end < 0 {
				return ""
			}
			return rest[off+end+1:]
		}
		if end < 0 {
			break
		}
		off += end + 1
	}
	return s // unterminated: not frontmatter
}
