package vault

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// A rename rewrites a canvas that points at the moved note as it rewrites
// a note: its file cards get the note's new vault path, and the links of
// its text cards the text a note's would get (planRewrites). The canvas
// is JSON, so the new text of a card is not spliced into the file's bytes
// where the link is (a card's text is an escaped JSON string): the string
// value of the card's "file" or "text" is replaced whole, by the changed
// string encoded as JSON.stringify encodes it (as Obsidian writes a
// canvas), and every other byte of the file is kept.

// jsonString is a string value of a JSON document: its value, and where
// its literal (with its quotes) is in the document.
type jsonString struct {
	val        string
	start, end int
	ok         bool
}

// canvasCardAt is one card of a canvas with where its "type", "file" and
// "text" values are.
type canvasCardAt struct {
	typ, file, text jsonString
}

// canvasCards reads the cards of a canvas, with the place of their string
// values in raw. Values that are not strings, and keys other than those
// read, are skipped; a later value of a key repeated wins, as in
// json.Unmarshal (parseCanvas).
func canvasCards(raw []byte) ([]canvasCardAt, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("canvas is not a JSON object")
	}
	var cards []canvasCardAt
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return nil, err
		}
		t, err := d.Token()
		if err != nil {
			return nil, err
		}
		if k != "nodes" || t != json.Delim('[') {
			if err := skipJSON(d, t); err != nil {
				return nil, err
			}
			continue
		}
		cards = cards[:0] // a repeated "nodes": the last wins
		for d.More() {
			c, err := canvasCardOf(d, raw)
			if err != nil {
				return nil, err
			}
			cards = append(cards, c)
		}
		if _, err := d.Token(); err != nil { // ']'
			return nil, err
		}
	}
	// The object ends, and nothing follows it (as json.Unmarshal, which
	// parseCanvas reads the canvas with, wants).
	if t, err := d.Token(); err != nil || t != json.Delim('}') {
		return nil, fmt.Errorf("canvas is not a whole JSON object")
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("canvas has more than one JSON value")
	}
	return cards, nil
}

// canvasCardOf reads one element of a canvas's "nodes".
func canvasCardOf(d *json.Decoder, raw []byte) (canvasCardAt, error) {
	var c canvasCardAt
	t, err := d.Token()
	if err != nil {
		return c, err
	}
	if t != json.Delim('{') {
		return c, skipJSON(d, t)
	}
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return c, err
		}
		before := int(d.InputOffset())
		v, err := d.Token()
		if err != nil {
			return c, err
		}
		s, isString := v.(string)
		if !isString {
			if err := skipJSON(d, v); err != nil {
				return c, err
			}
			continue
		}
		// Between the key and the value are only blanks and ":".
		start := before + bytes.IndexByte(raw[before:], '"')
		js := jsonString{val: s, start: start, end: int(d.InputOffset()), ok: true}
		switch k {
		case "type":
			c.typ = js
		case "file":
			c.file = js
		case "text":
			c.text = js
		}
	}
	_, err = d.Token() // '}'
	return c, err
}

// skipJSON skips the rest of a value whose first token is t.
func skipJSON(d *json.Decoder, t json.Token) error {
	if t != json.Delim('{') && t != json.Delim('[') {
		return nil
	}
	for depth := 1; depth > 0; {
		t, err := d.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

// applyCanvasRewrite is applyRewrite for a canvas: its file cards naming
// a path plan changes get the new path, its text cards' links the new
// texts; it returns the file and how many links changed. A file that is
// not JSON Canvas is left as it is.
func applyCanvasRewrite(plan *fileRewrite, raw []byte) ([]byte, int) {
	cards, err := canvasCards(raw)
	if err != nil {
		return raw, 0
	}
	type splice struct {
		start, end int
		val        string
	}
	var splices []splice
	changed := 0
	for _, c := range cards {
		switch c.typ.val {
		case "file":
			if !c.file.ok {
				continue
			}
			t, ok := plan.texts[linkText{card: true, written: strings.TrimSpace(c.file.val)}]
			if ok && t != c.file.val {
				splices = append(splices, splice{c.file.start, c.file.end, t})
				changed++
			}
		case "text":
			if !c.text.ok {
				continue
			}
			var edits []linkEdit
			text := []byte(c.text.val)
			for _, s := range scanText(c.text.val, plan.path) {
				t, ok := plan.texts[linkText{markdown: s.markdown, written: s.written}]
				if !ok {
					continue
				}
				if s.markdown {
					t = markdownDestPath(s, text, t)
				}
				edits = append(edits, linkEdit{s, t})
			}
			if len(edits) == 0 {
				continue
			}
			out, n := applyEdits(&linkRewrite{raw: text, edits: edits})
			if n > 0 {
				splices = append(splices, splice{c.text.start, c.text.end, string(out)})
				changed += n
			}
		}
	}
	if changed == 0 {
		return raw, 0
	}
	var b bytes.Buffer
	last := 0
	for _, s := range splices { // in file order: cards are read in order
		b.Write(raw[last:s.start])
		writeJSONString(&b, s.val)
		last = s.end
	}
	b.Write(raw[last:])
	return b.Bytes(), changed
}

// writeJSONString writes s as a JSON string literal as JavaScript's
// JSON.stringify does (Obsidian writes canvases with it): only '"', '\'
// and control characters escaped, the short escapes where JSON has them.
func writeJSONString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if c < 0x20 {
				fmt.Fprintf(b, `\u%04x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}
