package kb

import "strings"

const utf8BOM = "\ufeff"

// document is a note split into its frontmatter block and its body.
type document struct {
	hasFrontmatter bool
	frontmatter    string // the YAML between the delimiter lines
	body           string // everything after the closing delimiter line
}

// splitDocument finds the frontmatter as Obsidian does: a first line
// "---" (after an optional BOM) and the next line that is "---" or "...";
// without a closing line there is no frontmatter and all is body. CRLF
// line endings are accepted.
func splitDocument(content string) document {
	text := strings.TrimPrefix(content, utf8BOM)
	first, rest, ok := strings.Cut(text, "\n")
	if !ok || trimLine(first) != "---" {
		return document{body: content}
	}
	offset := 0
	for offset <= len(rest) {
		line, tail, more := strings.Cut(rest[offset:], "\n")
		if l := trimLine(line); l == "---" || l == "..." {
			body := ""
			if more {
				body = tail
			}
			return document{hasFrontmatter: true, frontmatter: rest[:offset], body: body}
		}
		if !more {
			break
		}
		offset += len(line) + 1
	}
	return document{body: content}
}

// trimLine drops a line's trailing blanks and carriage return.
func trimLine(s string) string { return strings.TrimRight(s, " \t\r") }
