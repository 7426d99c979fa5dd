package kb

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The writers below produce YAML that strict parsers accept and that the
// Obsidian plugin's line-based reader reads back to the same text: it
// strips one pair of surrounding quotes and does not unescape.

// quoted returns s as a quoted YAML scalar: in double quotes when nothing
// in it needs escaping (exactly what the plugin writes), else in single
// quotes (no escapes at all in YAML; a quote is doubled), else, for line
// breaks and other control characters, double-quoted with escapes.
func quoted(s string) string {
	if !hasControl(s) {
		if !strings.ContainsAny(s, `"\`) {
			return `"` + s + `"`
		}
		return singleQuoted(s)
	}
	return escaped(s)
}

// literal returns s as a YAML scalar whose text is taken literally, for
// regular expressions: single-quoted, or escaped when s has line breaks.
func literal(s string) string {
	if !hasControl(s) {
		return singleQuoted(s)
	}
	return escaped(s)
}

// plainName matches names that YAML reads as the same string when written
// without quotes; the plugin reads field names only in that form.
var plainName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*(?:[ .][A-Za-z0-9_-]+)*$`)

// yamlKeywords are words YAML could read as something other than a string.
var yamlKeywords = map[string]bool{"true": true, "false": true, "null": true, "yes": true, "no": true, "on": true, "off": true, "y": true, "n": true}

// name returns s plain when that reads back as s, else quoted.
func name(s string) string {
	if plainName.MatchString(s) && !yamlKeywords[strings.ToLower(s)] {
		return s
	}
	return quoted(s)
}

func singleQuoted(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// hasControl reports whether s holds something a quoted YAML scalar
// cannot hold as it is: a line break (it would fold), a character YAML
// does not count as printable, or bytes that are not UTF-8.
func hasControl(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if needsEscape(r) {
			return true
		}
	}
	return false
}

// needsEscape: line breaks, and characters outside YAML's printable set
// (tab, LF, CR, 0x20-0x7E, NEL, 0xA0-0xD7FF, 0xE000-0xFFFD, 0x10000 and
// above). NEL and the Unicode line and paragraph separators are escaped
// too, as line breaks.
func needsEscape(r rune) bool {
	switch {
	case r == '\t':
		return false
	case r < 0x20, r >= 0x7f && r <= 0x9f, r == 0x2028, r == 0x2029:
		return true
	case r >= 0xd800 && r <= 0xdfff, r == 0xfffe, r == 0xffff:
		return true
	}
	return false
}

// escaped writes s as a double-quoted YAML scalar, escaping quotes,
// backslashes and every character needsEscape names; bytes that are not
// UTF-8 become U+FFFD.
func escaped(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\uFFFD`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case needsEscape(r):
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// scalar writes an allowed value: a quoted string, a number or a boolean.
func scalar(v any) string {
	switch x := v.(type) {
	case string:
		return quoted(x)
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return quoted("")
}

// flowList writes values as a one-line YAML flow list.
func flowList[T any](values []T, item func(T) string) string {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = item(v)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
