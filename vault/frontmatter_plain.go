package vault

import (
	"strings"
	"time"
	"unicode/utf8"
)

// plainFrontmatter decodes the frontmatter most notes have (a note's
// properties as Obsidian writes them: "key: value" lines and lists of
// "  - item" lines or "[a, b]") without the YAML parser, which costs a
// first sync of 100k notes more in allocations than reading the files.
// It decodes only what it can decode exactly as yaml.v3 does — keys and
// values of a narrow alphabet whose YAML type is a string, a small
// integer or a date (a time.Time, as yaml.v3 v3.0.1 decodes a plain
// date into an interface), and double-quoted strings without escapes —
// and declines anything else (ok false): single quotes, escapes,
// comments, tabs, nesting, a duplicate key, a value YAML reads as a bool
// or null. The caller then uses the YAML parser. FuzzPlainFrontmatter
// holds the two to the same result.
func plainFrontmatter(src string) (m map[string]any, ok bool) {
	// The strings decoded are windows into src, which is a window into
	// the file's bytes: a copy of the block keeps a title, a tag or an
	// entity's field taken from them from holding the whole file (the
	// YAML parser's strings held nothing else either).
	src = strings.Clone(src)
	m = make(map[string]any, 4)
	var list []any // the block list being read, for the key last seen
	var listKey string
	listIndent := -1 // the list's items' indent; -1: no list being read
	flush := func() {
		if listIndent >= 0 {
			m[listKey] = list
			list, listIndent = nil, -1
		}
	}
	for len(src) > 0 {
		line := src
		if i := strings.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = ""
		}
		if strings.TrimRight(line, " ") == "" {
			continue
		}
		if line[0] == ' ' || line[0] == '-' {
			// An item of the list under the key last seen.
			if listKey == "" || (listIndent < 0 && m[listKey] != nil) {
				return nil, false
			}
			indent := len(line) - len(strings.TrimLeft(line, " "))
			rest := line[indent:]
			if !strings.HasPrefix(rest, "- ") {
				return nil, false
			}
			if listIndent < 0 {
				listIndent = indent
			} else if indent != listIndent {
				return nil, false
			}
			v, ok := plainScalar(strings.Trim(rest[2:], " "), false)
			if !ok {
				return nil, false
			}
			list = append(list, v)
			continue
		}
		flush()
		key, rest, found := strings.Cut(line, ":")
		if !found || !plainKey(key) {
			return nil, false
		}
		if _, dup := m[key]; dup {
			return nil, false // yaml.v3 rejects it; the salvage reports it
		}
		listKey = key
		if rest == "" || strings.TrimRight(rest, " ") == "" {
			m[key] = nil // a list may follow
			continue
		}
		if rest[0] != ' ' {
			return nil, false
		}
		value := strings.Trim(rest, " ")
		if strings.HasPrefix(value, "[") {
			items, ok := plainFlowList(value)
			if !ok {
				return nil, false
			}
			m[key] = items
			continue
		}
		v, ok := plainScalar(value, false)
		if !ok {
			return nil, false
		}
		m[key] = v
	}
	flush()
	return m, true
}

// plainFlowList decodes "[a, b, c]" of plain scalars.
func plainFlowList(s string) ([]any, bool) {
	if len(s) < 2 || s[len(s)-1] != ']' {
		return nil, false
	}
	inner := strings.Trim(s[1:len(s)-1], " ")
	items := []any{}
	if inner == "" {
		return items, true
	}
	for part := range strings.SplitSeq(inner, ",") {
		v, ok := plainScalar(strings.Trim(part, " "), true)
		if !ok {
			return nil, false
		}
		items = append(items, v)
	}
	return items, true
}

// plainKey: a key of letters, digits, "_", "-" and single inner spaces
// that starts with a letter, is not a word YAML reads as a bool or null,
// and is not longer than maxPlainKey.
func plainKey(k string) bool {
	if k == "" || len(k) > maxPlainKey || !isASCIILetter(k[0]) || yamlWord(k) {
		return false
	}
	for i := 1; i < len(k); i++ {
		c := k[i]
		if !isASCIILetter(c) && !isDigit(c) && c != '_' && c != '-' && (c != ' ' || k[i-1] == ' ' || i == len(k)-1) {
			return false
		}
	}
	return true
}

// maxPlainKey bounds a key's length: YAML reads a key without quotes
// only within 1,024 characters of its start (yaml.v3 refuses a longer
// one), so a long key goes to yaml.v3, which decides (found by
// FuzzPlainFrontmatter).
const maxPlainKey = 512

// plainScalar decodes one value: a double-quoted string without escapes
// (a string, as written between the quotes); text of letters, digits,
// single spaces and "_-./" (and "()',?!&+" outside a flow list) that
// starts with a letter (a string); digits without a leading zero (an int);
// or YYYY-MM-DD (a date, parsed with yaml.v3's layout for dates).
func plainScalar(s string, inFlow bool) (any, bool) {
	if s == "" {
		return nil, false
	}
	switch c := s[0]; {
	case c == '"':
		return quotedString(s)
	case isASCIILetter(c):
		if yamlWord(s) {
			return nil, false
		}
		for i := 1; i < len(s); i++ {
			c := s[i]
			switch {
			case isASCIILetter(c), isDigit(c), c == '_', c == '-', c == '.', c == '/':
			case c == ' ' && s[i-1] != ' ':
			case !inFlow && strings.IndexByte("()',?!&+", c) >= 0:
			default:
				return nil, false
			}
		}
		return s, true
	case isDigit(c):
		if isDate(s) {
			t, err := time.Parse(yamlDateLayout, s)
			return t, err == nil
		}
		if len(s) > 18 || (c == '0' && len(s) > 1) {
			return nil, false
		}
		n := 0
		for i := 0; i < len(s); i++ {
			if !isDigit(s[i]) {
				return nil, false
			}
			n = n*10 + int(s[i]-'0')
		}
		return n, true
	}
	return nil, false
}

// quotedString decodes "text" whose text has no quote, no backslash and
// nothing YAML reads as a line break or refuses as unprintable: the text
// itself. Obsidian writes link properties so ("[[Note]]").
func quotedString(s string) (any, bool) {
	if len(s) < 2 || s[len(s)-1] != '"' {
		return nil, false
	}
	text := s[1 : len(s)-1]
	for _, r := range text {
		switch {
		case r == '"' || r == '\\' || r == utf8.RuneError:
			return nil, false
		case r >= 0x20 && r <= 0x7E,
			r >= 0xA0 && r <= 0xD7FF && r != 0x2028 && r != 0x2029,
			r >= 0xE000 && r <= 0xFFFD && r != 0xFEFF,
			r >= 0x10000:
		default:
			return nil, false
		}
	}
	return text, true
}

// yamlDateLayout is the layout yaml.v3 tries for a timestamp without a
// time of day.
const yamlDateLayout = "2006-1-2"

// isDate: YYYY-MM-DD.
func isDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for i, c := range []byte(s) {
		if i != 4 && i != 7 && !isDigit(c) {
			return false
		}
	}
	return true
}

// yamlWord: a plain word YAML 1.2 (yaml.v3) gives a type other than
// string: bools, null, and the words of ".inf" and ".nan" start with a
// dot and are never plain here.
func yamlWord(s string) bool {
	switch s {
	case "true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL":
		return true
	}
	return false
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
