// Package chunk cuts documents into the pieces the document index embeds
// and searches: markdown by headings, plain text by paragraphs, Python by
// top-level definitions and PDF by page. Every function here is pure (no
// I/O beyond the bytes it is given) and never panics on any input; the
// fuzz tests hold it to that.
//
// Size rules, shared by every format. Sizes count Unicode code points
// ("characters"), never splitting one:
//   - A piece holds at most MaxChars characters (1,000), overlap included.
//   - A unit of text (a markdown section, a paragraph run, a page) longer
//     than MaxChars is split at paragraph boundaries (blank lines; a fenced
//     code block counts as one paragraph), a paragraph longer than the room
//     left at sentence boundaries (., ! or ? followed by white space), a
//     sentence at word boundaries, and a word at code points.
//   - Each piece after the first of a split unit starts with the end of the
//     previous piece: up to OverlapChars characters (150), starting at a
//     sentence or word boundary, so a sentence cut by a boundary is still
//     found whole in one of the two pieces.
//   - Python code is split at line boundaries instead (sentences mean
//     nothing in code), with the last lines as overlap.
package chunk

import (
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Limits of a piece, in characters (code points).
const (
	// MaxChars is the most characters a piece holds, overlap included.
	MaxChars = 1000
	// OverlapChars is the most characters a piece repeats from the end of
	// the previous piece of the same unit.
	OverlapChars = 150
)

// Piece is one chunk of a document, before it is embedded.
type Piece struct {
	// Content is the text of the piece, as it will be searched and shown.
	Content string
	// HeaderPath is "A > B > C" for markdown: the titles of the headings
	// the piece sits under, outermost first; "" before the first heading.
	// For Python it names the definition ("class Foo", "def bar") or
	// "module" for the module's docstring, imports and top-level code.
	HeaderPath string
	// Page is the 1-based page number of a PDF piece; 0 for other formats.
	Page int
}

// Kind is a supported document format.
type Kind string

// The supported formats.
const (
	KindMarkdown Kind = "markdown"
	KindText     Kind = "text"
	KindPython   Kind = "python"
	KindPDF      Kind = "pdf"
)

// kinds maps lower-case extensions to formats.
var kinds = map[string]Kind{
	".md":       KindMarkdown,
	".markdown": KindMarkdown,
	".txt":      KindText,
	".py":       KindPython,
	".pdf":      KindPDF,
}

// KindOf returns the format of a file name by its extension (compared
// case-insensitively), and false for an unsupported one.
func KindOf(name string) (Kind, bool) {
	k, ok := kinds[strings.ToLower(filepath.Ext(name))]
	return k, ok
}

// Extensions lists the supported extensions, for messages.
func Extensions() []string { return []string{".md", ".markdown", ".txt", ".py", ".pdf"} }

// Split cuts data, the content of a file of format k, into pieces. Text
// formats must be UTF-8: invalid bytes are replaced by U+FFFD. A PDF that
// cannot be read is an error; text formats never fail.
func Split(k Kind, data []byte) ([]Piece, error) {
	switch k {
	case KindPDF:
		return PDF(data)
	case KindMarkdown:
		return Markdown(text(data)), nil
	case KindPython:
		return Python(text(data)), nil
	default:
		return Text(text(data)), nil
	}
}

// text decodes data as UTF-8 without a BOM and with \n line ends.
func text(data []byte) string {
	s := strings.ToValidUTF8(string(data), "\uFFFD")
	s = strings.TrimPrefix(s, "\uFEFF")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// Text cuts plain text by paragraphs: consecutive paragraphs are packed
// into one piece while they fit in MaxChars, and a longer paragraph is
// split by the size rules.
func Text(s string) []Piece {
	var out []Piece
	for _, c := range pack(paragraphs(normalize(s)), "\n\n") {
		out = append(out, Piece{Content: c})
	}
	return out
}

// normalize turns CR and CRLF line ends into \n.
func normalize(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// runes counts the characters of s.
func runes(s string) int { return utf8.RuneCountInString(s) }
