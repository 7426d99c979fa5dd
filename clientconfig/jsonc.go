package clientconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tailscale/hujson"
)

// doc is a client configuration file as hujson's syntax tree, which holds
// every byte of the file (comments, trailing commas, whitespace), so packing
// it again gives the same bytes except where setup changed a value. The
// offsets in the tree are those of the file as read; new nodes have none and
// are never edited again.
type doc struct {
	src   []byte
	root  hujson.Value
	unit  string // one level of indentation, as the file indents its top level
	nl    string // the file's line ending: "\n" or "\r\n"
	jsonc bool   // the file has comments or trailing commas
}

// parseDoc parses JSON or JSONC (JSON with comments and trailing commas).
func parseDoc(src []byte) (*doc, error) {
	v, err := hujson.Parse(src)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "hujson: ")
		if errors.Is(err, io.ErrUnexpectedEOF) {
			line, _, _ := strings.Cut(msg, ": ")
			return nil, fmt.Errorf("the JSON ends too early (%s)", line)
		}
		return nil, errors.New(msg)
	}
	d := &doc{src: src, root: v, unit: "  ", nl: "\n"}
	if bytes.Contains(src, []byte("\r\n")) {
		d.nl = "\r\n"
	}
	std := v.Clone()
	std.Standardize()
	d.jsonc = !bytes.Equal(std.Pack(), src)
	if obj, ok := v.Value.(*hujson.Object); ok {
		for _, m := range obj.Members {
			if hasNewline(m.Name.BeforeExtra) {
				if in := d.lineIndent(m.Name.StartOffset); in != "" {
					d.unit = in
				}
				break
			}
		}
	}
	return d, nil
}

// object is v as an object whose keys are all different; where names it
// in errors ("" for the whole file).
func (d *doc) object(v *hujson.Value, where string) (*hujson.Object, error) {
	prefix := ""
	if where != "" {
		prefix = fmt.Sprintf("%q: ", where)
		if strings.Contains(where, ".") {
			prefix = where + ": "
		}
	}
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil, fmt.Errorf("%swant a JSON object, found %s", prefix, describe(v.Value))
	}
	seen := map[string]bool{}
	for _, m := range obj.Members {
		k := m.Name.Value.(hujson.Literal).String()
		if seen[k] {
			line, col := lineColumn(d.src, m.Name.StartOffset)
			return nil, fmt.Errorf("line %d, column %d: %sthe key %q appears twice", line, col, prefix, k)
		}
		seen[k] = true
	}
	return obj, nil
}

func describe(v hujson.ValueTrimmed) string {
	switch v.Kind() {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 'n':
		return "null"
	default:
		return "a boolean"
	}
}

// find is the index of key's member in obj.
func find(obj *hujson.Object, key string) (int, bool) {
	for i, m := range obj.Members {
		if m.Name.Value.(hujson.Literal).String() == key {
			return i, true
		}
	}
	return 0, false
}

// standard is v as standard JSON, comments and trailing commas removed.
func standard(v hujson.Value) []byte {
	c := v.Clone()
	c.Standardize()
	return c.Pack()
}

// insert appends the member key: val to obj, which starts at offset start
// of the file. The members before it keep their bytes; the last one gets
// the comma JSON needs (unless the object already ends with a trailing
// comma, a style the new member then keeps too). Laid out one member a line,
// the new member goes on its own lines after the last one, at that one's
// indentation, and what followed the last member on its line (a comment)
// stays there; in an object written on one line it is written on that line
// the way its neighbours are.
func (d *doc) insert(obj *hujson.Object, start int, key string, val json.RawMessage) {
	n := len(obj.Members)
	m := hujson.ObjectMember{}
	m.Name.Value = hujson.Literal(mustJSON(key))
	trailing := n > 0 && obj.Members[n-1].Value.AfterExtra != nil
	multiline := bytes.Contains(bytes.TrimSpace(d.src), []byte("\n"))
	if n > 0 {
		multiline = hasNewline(obj.Members[n-1].Name.BeforeExtra)
	}
	if !multiline {
		spaced := true
		if n > 0 {
			last := obj.Members[n-1]
			m.Name.BeforeExtra = whitespaceOnly(last.Name.BeforeExtra)
			m.Value.BeforeExtra = whitespaceOnly(last.Value.BeforeExtra)
			spaced = len(m.Value.BeforeExtra) > 0
		} else {
			m.Value.BeforeExtra = hujson.Extra(" ")
		}
		m.Value.Value = d.format(val, "", false, spaced)
		if trailing {
			m.Value.AfterExtra = hujson.Extra{}
		}
		obj.Members = append(obj.Members, m)
		return
	}
	outer := d.lineIndent(start)
	indent := outer + d.unit
	if n > 0 {
		indent = d.lineIndent(obj.Members[n-1].Name.StartOffset)
	}
	head, tail, ok := splitLine(obj.AfterExtra)
	if !ok {
		head, tail = append(head, d.nl...), hujson.Extra(outer)
	}
	m.Name.BeforeExtra = append(head, indent...)
	m.Value.BeforeExtra = hujson.Extra(" ")
	m.Value.Value = d.format(val, indent, true, true)
	if trailing {
		m.Value.AfterExtra = hujson.Extra{}
	}
	obj.AfterExtra = append(hujson.Extra(d.nl), tail...)
	obj.Members = append(obj.Members, m)
}

// replace sets member m's value to val, keeping the comments and spaces
// around it; a value written on one line stays on one line.
func (d *doc) replace(m *hujson.ObjectMember, val json.RawMessage) {
	old := d.src[m.Value.StartOffset:m.Value.EndOffset]
	multiline := bytes.Contains(old, []byte("\n"))
	spaced := multiline || bytes.Contains(old, []byte(", ")) || bytes.Contains(old, []byte(": ")) ||
		!bytes.ContainsAny(old, ",:") // one element or none: the file's other habits are unknown
	m.Value.Value = d.format(val, d.lineIndent(m.Name.StartOffset), multiline, spaced)
}

// format lays val out: on several lines, each after the first prefixed with
// prefix and indented by the file's unit; or on one line, with a space after
// each comma and colon (spaced) or none.
func (d *doc) format(val json.RawMessage, prefix string, multiline, spaced bool) hujson.ValueTrimmed {
	var b bytes.Buffer
	if multiline {
		_ = json.Indent(&b, val, prefix, d.unit) // val is JSON setup made
	} else {
		_ = json.Compact(&b, val)
		if spaced {
			b = *bytes.NewBuffer(spaceOut(b.Bytes()))
		}
	}
	text := b.Bytes()
	if d.nl != "\n" {
		text = bytes.ReplaceAll(text, []byte("\n"), []byte(d.nl))
	}
	v, err := hujson.Parse(text)
	if err != nil { // unreachable: json.Indent and Compact make JSON
		panic(fmt.Sprintf("clientconfig: formatted value does not parse: %v", err))
	}
	return v.Value
}

// spaceOut puts a space after every comma and colon of compact JSON that is
// not inside a string.
func spaceOut(compact []byte) []byte {
	var out []byte
	inString, escaped := false, false
	for _, c := range compact {
		out = append(out, c)
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ',' || c == ':'):
			out = append(out, ' ')
		}
	}
	return out
}

// lineIndent is the blank space that starts the line holding offset.
func (d *doc) lineIndent(offset int) string {
	start := bytes.LastIndexByte(d.src[:offset], '\n') + 1
	end := start
	for end < len(d.src) && (d.src[end] == ' ' || d.src[end] == '\t') {
		end++
	}
	return string(d.src[start:end])
}

// splitLine splits extra after the first line break that is not inside a
// block comment (the one ending a line comment counts): head is the rest
// of the line, break included. ok is false when extra has no such break.
func splitLine(extra hujson.Extra) (head, tail hujson.Extra, ok bool) {
	for i := 0; i < len(extra); i++ {
		switch {
		case extra[i] == '\n':
			return clone(extra[:i+1]), clone(extra[i+1:]), true
		case bytes.HasPrefix(extra[i:], []byte("/*")):
			end := bytes.Index(extra[i+2:], []byte("*/"))
			if end < 0 {
				return clone(extra), nil, false // unreachable: hujson parsed it
			}
			i += 2 + end + 1
		}
	}
	return clone(extra), nil, false
}

func clone(b []byte) hujson.Extra { return append(hujson.Extra{}, b...) }

func hasNewline(b []byte) bool { return bytes.IndexByte(b, '\n') >= 0 }

// whitespaceOnly is extra when it is blank space, else one space.
func whitespaceOnly(extra hujson.Extra) hujson.Extra {
	if len(bytes.TrimLeft(extra, " \t")) == 0 {
		return clone(extra)
	}
	return hujson.Extra(" ")
}

// newObject is a compact JSON object of the given keys and JSON values, in
// their order.
func newObject(kvs [][2]string) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range kvs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(mustJSON(kv[0]))
		b.WriteByte(':')
		b.WriteString(kv[1])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// lineColumn is offset's line and column, from 1.
func lineColumn(b []byte, offset int) (line, col int) {
	line = 1 + bytes.Count(b[:offset], []byte("\n"))
	col = 1 + offset - (bytes.LastIndexByte(b[:offset], '\n') + 1)
	return line, col
}
