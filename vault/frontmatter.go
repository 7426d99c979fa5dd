package vault

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// frontmatterBlock is the YAML block at the very top of a note, between a
// first line "---" and the next line "---" (or "..."). Without a closing
// line there is no frontmatter and the whole file is body, as in Obsidian.
type frontmatterBlock struct {
	yaml      string // the lines between the fences, line breaks as written
	bodyStart int    // offset of the body in the text searched
}

// maxFrontmatterWarnings caps the warnings one broken frontmatter block
// gives; the rest are counted in one more line.
const maxFrontmatterWarnings = 5

// frontmatterFirstLine is the file line number of the first YAML line: the
// opening "---" is line 1.
const frontmatterFirstLine = 2

// splitFrontmatter finds the frontmatter block of text (BOM already removed;
// CRLF line endings accepted).
func splitFrontmatter(text string) (frontmatterBlock, bool) {
	first, rest, ok := strings.Cut(text, "\n")
	if !ok || strings.TrimRight(first, " \t\r") != "---" {
		return frontmatterBlock{}, false
	}
	offset := len(first) + 1
	for pos := 0; pos <= len(rest); {
		end := strings.IndexByte(rest[pos:], '\n')
		lineEnd, next := pos+end, pos+end+1
		if end < 0 {
			lineEnd, next = len(rest), len(rest)
		}
		switch strings.TrimRight(rest[pos:lineEnd], " \t\r") {
		case "---", "...":
			return frontmatterBlock{yaml: rest[:pos], bodyStart: offset + next}, true
		}
		if end < 0 {
			break
		}
		pos = next
	}
	return frontmatterBlock{}, false
}

// parseFrontmatter decodes the YAML of a frontmatter block into a map. YAML
// that a strict parser rejects does not lose the note: each top-level entry
// ("key: value" with its indented or "- item" lines) is decoded on its own,
// an entry that still fails is kept as raw text ("key: raw value", a list of
// raw "- items", or a "[a, b]" flow list split at commas), and each failure
// becomes a warning "path:line: frontmatter: message". It returns nil when
// there is nothing to keep.
func parseFrontmatter(path, src string) (map[string]any, []string) {
	src = strings.ReplaceAll(src, "\r\n", "\n")
	if strings.TrimSpace(src) == "" {
		return nil, nil
	}
	if m, ok := plainFrontmatter(src); ok {
		return emptyToNil(m), nil
	}
	return yamlFrontmatter(path, src)
}

// yamlFrontmatter is parseFrontmatter through the YAML parser.
func yamlFrontmatter(path, src string) (map[string]any, []string) {
	var doc any
	err := yaml.Unmarshal([]byte(src), &doc)
	if err == nil {
		m, ok := normalizeYAML(doc).(map[string]any)
		if !ok {
			if doc == nil {
				return nil, nil // only comments
			}
			return nil, []string{fmt.Sprintf("%s:%d: frontmatter: not a mapping of keys to values", path, frontmatterFirstLine)}
		}
		return emptyToNil(m), nil
	}
	m, warnings := salvageFrontmatter(path, src)
	if len(warnings) > maxFrontmatterWarnings {
		more := len(warnings) - maxFrontmatterWarnings
		warnings = append(warnings[:maxFrontmatterWarnings], fmt.Sprintf("%s: frontmatter: %d more problems", path, more))
	}
	if len(warnings) == 0 {
		// Every entry decodes alone, so the document fails as a whole
		// (a duplicate key, say): report that error.
		line, msg := yamlErrorLine(err)
		warnings = append(warnings, fmt.Sprintf("%s:%d: frontmatter: %s", path, frontmatterFirstLine+line-1, msg))
	}
	return emptyToNil(m), warnings
}

func emptyToNil(m map[string]any) map[string]any {
	if len(m) == 0 {
		return nil
	}
	return m
}

// yamlEntry is one top-level entry of a frontmatter block.
type yamlEntry struct {
	line  int // 1-based line in the block of its first line
	lines []string
}

// Bounds on the work of salvaging one frontmatter block, whatever its size:
// entries are first decoded salvageChunk at a time (a block with one bad
// entry costs a few decodes, not one per entry), and after
// maxSalvageFailures entries YAML rejected, the rest are read as raw text
// without trying YAML.
const (
	salvageChunk       = 32
	maxSalvageFailures = 20
)

// salvageFrontmatter decodes entry by entry what the whole block could not.
func salvageFrontmatter(path, src string) (map[string]any, []string) {
	var entries []yamlEntry
	for i, line := range strings.Split(src, "\n") {
		startsEntry := line != "" && !strings.ContainsRune(" \t-#", rune(line[0])) && strings.TrimSpace(line) != ""
		if startsEntry || len(entries) == 0 {
			entries = append(entries, yamlEntry{line: i + 1})
		}
		e := &entries[len(entries)-1]
		e.lines = append(e.lines, line)
	}
	out := map[string]any{}
	var warnings []string
	failures := 0
	for start := 0; start < len(entries); start += salvageChunk {
		chunk := entries[start:min(start+salvageChunk, len(entries))]
		if len(chunk) > 1 && failures < maxSalvageFailures {
			var lines []string
			for _, e := range chunk {
				lines = append(lines, e.lines...)
			}
			var v any
			if yaml.Unmarshal([]byte(strings.Join(lines, "\n")), &v) == nil {
				if m, ok := normalizeYAML(v).(map[string]any); ok {
					for k, val := range m {
						out[k] = val
					}
					continue
				}
			}
		}
		for _, e := range chunk {
			if failures >= maxSalvageFailures {
				if k, v, ok := rawEntry(e.lines); ok {
					out[k] = v
				}
				continue
			}
			if w, ok := salvageEntry(path, e, out); !ok {
				failures++
				warnings = append(warnings, w)
			}
		}
	}
	return out, warnings
}

// salvageEntry decodes one entry into out, as YAML or else as raw text,
// and returns the warning when YAML rejected it.
func salvageEntry(path string, e yamlEntry, out map[string]any) (string, bool) {
	text := strings.Join(e.lines, "\n")
	if strings.TrimSpace(text) == "" {
		return "", true
	}
	var v any
	err := yaml.Unmarshal([]byte(text), &v)
	if err == nil {
		switch m := normalizeYAML(v).(type) {
		case map[string]any:
			for k, val := range m {
				out[k] = val
			}
			return "", true
		case nil:
			return "", true // comments only
		}
		return fmt.Sprintf("%s:%d: frontmatter: expected \"key: value\"", path, frontmatterFirstLine+e.line-1), false
	}
	line, msg := yamlErrorLine(err)
	if k, v, ok := rawEntry(e.lines); ok {
		out[k] = v
	}
	return fmt.Sprintf("%s:%d: frontmatter: %s", path, frontmatterFirstLine+e.line+line-2, msg), false
}

// rawEntry reads an entry YAML rejected as plain text: the key before the
// first ": ", and as value the raw rest of the line with matching quotes
// removed, a "[a, b]" flow list split at commas, or the raw "- item" lines
// that follow.
func rawEntry(lines []string) (string, any, bool) {
	key, rest, ok := cutKey(lines[0])
	if !ok {
		return "", nil, false
	}
	rest = strings.TrimSpace(rest)
	switch {
	case strings.HasPrefix(rest, "[") && strings.HasSuffix(rest, "]"):
		var items []any
		for _, item := range strings.Split(rest[1:len(rest)-1], ",") {
			if item = unquoteLoose(item); item != "" {
				items = append(items, item)
			}
		}
		return key, items, true
	case rest != "":
		return key, unquoteLoose(rest), true
	}
	var items []any
	for _, l := range lines[1:] {
		t := strings.TrimSpace(l)
		switch {
		case t == "" || strings.HasPrefix(t, "#"):
			continue
		case strings.HasPrefix(t, "- ") || t == "-":
			items = append(items, unquoteLoose(strings.TrimPrefix(t, "-")))
		default:
			return "", nil, false // a nested mapping: nothing safe to keep
		}
	}
	if items == nil {
		return key, nil, true
	}
	return key, items, true
}

// cutKey splits "key: rest" (the key possibly quoted).
func cutKey(line string) (key, rest string, ok bool) {
	for i := 0; i < len(line); i++ {
		if line[i] == ':' && (i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t') {
			key = unquoteLoose(line[:i])
			return key, line[i+1:], key != ""
		}
	}
	return "", "", false
}

// unquoteLoose trims s and removes one pair of matching surrounding quotes;
// an unquoted value loses a trailing " # comment".
func unquoteLoose(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	if i := strings.Index(s, " #"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

var yamlLineRe = regexp.MustCompile(`line (\d+): (.*)`)

// yamlErrorLine extracts the 1-based line and the message of a yaml.v3
// error ("yaml: line 3: did not find expected key"); line 1 when the error
// names none.
func yamlErrorLine(err error) (int, string) {
	msg := err.Error()
	if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
		if n, convErr := strconv.Atoi(m[1]); convErr == nil && n > 0 {
			return n, strings.TrimSpace(m[2])
		}
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return 1, strings.TrimSpace(msg)
}

// normalizeYAML turns maps with non-string keys into map[string]any
// (keys formatted with fmt), recursively, so frontmatter always has the
// shape JSON and the stores can take.
func normalizeYAML(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, val := range t {
			t[k] = normalizeYAML(val)
		}
		return t
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, val := range t {
			m[fmt.Sprint(k)] = normalizeYAML(val)
		}
		return m
	case []any:
		for i, val := range t {
			t[i] = normalizeYAML(val)
		}
		return t
	default:
		return v
	}
}
