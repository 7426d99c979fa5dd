package noteedit

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"
)

// fmEntry is one top-level frontmatter entry: the key line and the lines
// that continue it (indented lines, "- item" lines, blank lines between
// them), as indexes into fmBlock.lines. Comment lines at the left margin
// belong to no entry, so they stay where they are.
type fmEntry struct {
	key         string
	first, last int
}

func (o *outline) fmEntries() []fmEntry {
	var out []fmEntry
	cur := -1 // index in out of the entry being read
	for k, l := range o.fm.lines {
		t := o.text(l)
		switch {
		case strings.TrimSpace(t) == "":
			// Blank: part of the entry only if it continues after.
		case t[0] == ' ' || t[0] == '\t' || t[0] == '-':
			if cur >= 0 {
				out[cur].last = k
			}
		case t[0] == '#':
			cur = -1
		default:
			if key, ok := cutKey(t); ok {
				out = append(out, fmEntry{key: key, first: k, last: k})
				cur = len(out) - 1
			} else {
				cur = -1
			}
		}
	}
	return out
}

// cutKey reads the key of a "key: value" line (a quoted key unquoted).
func cutKey(t string) (string, bool) {
	if t[0] == '"' || t[0] == '\'' {
		end := strings.IndexByte(t[1:], t[0])
		if end < 0 {
			return "", false
		}
		rest := t[end+2:]
		if !strings.HasPrefix(strings.TrimLeft(rest, " \t"), ":") {
			return "", false
		}
		return t[1 : end+1], true
	}
	for i := 0; i < len(t); i++ {
		if t[i] == ':' && (i+1 == len(t) || t[i+1] == ' ' || t[i+1] == '\t') {
			return strings.TrimRight(t[:i], " \t"), i > 0
		}
	}
	return "", false
}

// findKey returns the entry of key: the exact key, else the one key that
// matches in any letter case (Obsidian's properties do not tell case
// apart); -1 when there is none.
func (o *outline) findKey(entries []fmEntry, key string) int {
	for i, e := range entries {
		if e.key == key {
			return i
		}
	}
	found := -1
	for i, e := range entries {
		if strings.EqualFold(e.key, key) {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}

func checkKey(key string) error {
	if strings.TrimSpace(key) == "" {
		return argErr("key is empty; give the frontmatter property to change, such as \"status\"")
	}
	if strings.ContainsFunc(key, unicode.IsControl) || key != strings.TrimSpace(key) {
		return argErr("key %q holds a line break, a control character or surrounding blanks; give the property name alone", key)
	}
	return nil
}

// setKey sets the top-level frontmatter entry key to value: the entry's
// lines are replaced by the value encoded as YAML (the key keeps the
// spelling it has in the file); a new entry goes last in the block; a
// note without frontmatter gets a block. Every other line of the block,
// comments included, stays as it is.
func (o *outline) setKey(key string, value any) ([]Span, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	var entries []fmEntry
	at := -1
	if o.fm != nil {
		entries = o.fmEntries()
		if at = o.findKey(entries, key); at >= 0 {
			key = entries[at].key
		}
	}
	text, err := o.encodeEntry(key, value)
	if err != nil {
		return nil, err
	}
	var span Span
	switch {
	case o.fm == nil:
		span = Span{o.bom, o.bom, "---" + o.eol + text + "---" + o.eol}
	case at >= 0:
		e := entries[at]
		span = Span{o.fm.lines[e.first].start, o.fm.lines[e.last].next, text}
	default:
		span = Span{o.fm.close.start, o.fm.close.start, text}
	}
	if err := o.checkYAML(span); err != nil {
		return nil, err
	}
	return []Span{span}, nil
}

// removeKey drops the lines of the entry key; nothing when there is none.
// The block stays, even when it is left empty.
func (o *outline) removeKey(key string) ([]Span, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	if o.fm == nil {
		return nil, nil
	}
	entries := o.fmEntries()
	at := o.findKey(entries, key)
	if at < 0 {
		return nil, nil
	}
	e := entries[at]
	return []Span{{o.fm.lines[e.first].start, o.fm.lines[e.last].next, ""}}, nil
}

// encodeEntry encodes one entry as YAML lines, each ending with the note's
// line break.
func (o *outline) encodeEntry(key string, value any) (string, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	node := &yaml.Node{Kind: yaml.MappingNode}
	var k, v yaml.Node
	if err := k.Encode(key); err != nil {
		return "", argErr("key %q cannot be written as YAML", key)
	}
	if err := v.Encode(plain(value)); err != nil {
		return "", argErr("value of %q cannot be written as YAML: %v", key, err)
	}
	node.Content = []*yaml.Node{&k, &v}
	if err := enc.Encode(node); err != nil {
		return "", argErr("value of %q cannot be written as YAML: %v", key, err)
	}
	_ = enc.Close()
	s := strings.TrimRight(buf.String(), "\n")
	return strings.ReplaceAll(s, "\n", o.eol) + o.eol, nil
}

// plain turns JSON numbers into int64 or float64, recursively, so they are
// written as YAML numbers, not strings.
func plain(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = plain(x)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = plain(x)
		}
		return out
	}
	return v
}

// checkYAML refuses a span that would turn a block that parses into one
// that does not (a guard: an entry is replaced whole, so it should not).
func (o *outline) checkYAML(s Span) error {
	if o.fm == nil {
		return nil
	}
	from, to := o.fm.open.next, o.fm.close.start
	before := o.raw[from:to]
	var v any
	if yaml.Unmarshal([]byte(strings.ReplaceAll(before, "\r\n", "\n")), &v) != nil {
		return nil // it did not parse before: nothing to keep
	}
	after := o.raw[from:s.Start] + s.Text + o.raw[s.End:to]
	if err := yaml.Unmarshal([]byte(strings.ReplaceAll(after, "\r\n", "\n")), &v); err != nil {
		return argErr("the frontmatter would no longer parse after this change (%v); nothing was changed", err)
	}
	return nil
}
