package kb

import "strings"

// headings returns the texts of the markdown headings of body, in order:
// ATX headings ("# Title" to "###### Title", closing #s dropped) and
// setext headings (a paragraph line underlined with === or ---). Lines
// inside fenced code blocks (``` or ~~~) are not headings.
func headings(body string) []string {
	var out []string
	var fence string // the opening fence while inside a code block
	prev := ""       // the previous line, when it could be a setext heading's text
	for _, raw := range strings.Split(body, "\n") {
		line := trimLine(raw)
		inner, indented := unindent(line)
		if fence != "" {
			if !indented && strings.HasPrefix(inner, fence) && strings.Trim(inner, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if !indented {
			if f := fenceOf(inner); f != "" {
				fence = f
				prev = ""
				continue
			}
			if text, ok := atxHeading(inner); ok {
				out = append(out, text)
				prev = ""
				continue
			}
			if prev != "" && isSetextUnderline(inner) {
				out = append(out, strings.TrimSpace(prev))
				prev = ""
				continue
			}
		}
		if strings.TrimSpace(line) == "" {
			prev = ""
		} else {
			prev = line
		}
	}
	return out
}

// unindent strips up to three leading spaces; indented is true for lines
// indented more (code, or a paragraph continuation).
func unindent(line string) (string, bool) {
	n := 0
	for n < len(line) && line[n] == ' ' {
		n++
	}
	if n > 3 || strings.HasPrefix(line[n:], "\t") {
		return line, true
	}
	return line[n:], false
}

// fenceOf returns the fence a line opens (its run of backticks or tildes,
// three or more), or "".
func fenceOf(line string) string {
	for _, c := range []string{"`", "~"} {
		n := len(line) - len(strings.TrimLeft(line, c))
		if n >= 3 {
			if c == "`" && strings.Contains(line[n:], "`") {
				return "" // an info string with a backtick: not a fence
			}
			return line[:n]
		}
	}
	return ""
}

// atxHeading returns the text of an ATX heading line.
func atxHeading(line string) (string, bool) {
	n := len(line) - len(strings.TrimLeft(line, "#"))
	if n < 1 || n > 6 || (len(line) > n && line[n] != ' ' && line[n] != '\t') {
		return "", false
	}
	text := strings.TrimSpace(line[n:])
	if closing := strings.TrimRight(text, "#"); closing != text {
		if closing == "" {
			text = ""
		} else if strings.HasSuffix(closing, " ") || strings.HasSuffix(closing, "\t") {
			text = strings.TrimSpace(closing)
		}
	}
	return text, true
}

func isSetextUnderline(line string) bool {
	t := strings.TrimSpace(line)
	return t != "" && (strings.Trim(t, "=") == "" || strings.Trim(t, "-") == "")
}

// headingKey is the comparison form of a heading or of a required section
// as a rule writes it ("Summary" or "## Summary"): leading #s dropped,
// blanks collapsed, lower case.
func headingKey(s string) string {
	s = strings.TrimLeft(strings.TrimSpace(s), "#")
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}
