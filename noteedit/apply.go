package noteedit

import (
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/vaultgraph/vaultgraph/core"
)

// Operation names one kind of edit.
type Operation string

// The operations of edit_note.
const (
	Append            Operation = "append"             // add content at the end of a section's own text (or of the note)
	Prepend           Operation = "prepend"            // add content at the start of a section's own text (or of the body)
	ReplaceSection    Operation = "replace_section"    // replace everything under a heading, up to the next heading of its level or higher
	InsertAfter       Operation = "insert_after"       // add a new section (content starting with a heading) after a section
	ReplaceText       Operation = "replace_text"       // replace an exact span of text occurring ExpectedCount times
	SetFrontmatter    Operation = "set_frontmatter"    // set one top-level frontmatter key
	RemoveFrontmatter Operation = "remove_frontmatter" // remove one top-level frontmatter key
)

// Operations lists every operation, in the order the tool documents them.
var Operations = []Operation{Append, Prepend, ReplaceSection, InsertAfter, ReplaceText, SetFrontmatter, RemoveFrontmatter}

// Op is one edit of one note.
type Op struct {
	Operation Operation
	// Heading names the section (append, prepend, replace_section,
	// insert_after): "Today", "## Today" or a path "Projects > Q1". Empty
	// for append and prepend means the whole note.
	Heading string
	// Content is the text to add or the section's new text; its line
	// breaks are written as the note's own.
	Content string
	// OldText must occur exactly ExpectedCount times (0 means 1); each
	// occurrence is replaced by NewText.
	OldText, NewText string
	ExpectedCount    int
	// Key and Value are the frontmatter entry; Value is any JSON value,
	// decoded (numbers as int64 or float64).
	Key   string
	Value any
}

// Span is one change of a note file: the bytes [Start, End) of the file
// before the edit are replaced by Text. Everything outside the spans of
// an edit is kept byte for byte.
type Span struct {
	Start, End int
	Text       string
}

// Edit is an applied Op: the file after it and the spans that changed.
type Edit struct {
	Out   []byte
	Spans []Span // in file order, never overlapping; none when nothing changed
}

// Changed reports whether the edit changed the file.
func (e *Edit) Changed() bool { return len(e.Spans) > 0 }

func argErr(format string, args ...any) error { return core.InvalidArgument(format, args...) }

// Apply applies op to raw, a whole note file, and returns the new file.
// Every change is a span of the file; the rest of it is kept byte for
// byte: line breaks (new text takes the file's own, CRLF or LF), the
// byte order mark, frontmatter comments and key order, code blocks.
// Headings inside fenced code blocks and comments are not headings;
// setext headings are. A bad op (no such heading, a text span not found
// as often as expected) is a *core.ArgumentError whose message says what
// to change.
func Apply(raw []byte, op Op) (*Edit, error) {
	o := parse(string(raw))
	var spans []Span
	var err error
	switch op.Operation {
	case Append, Prepend, ReplaceSection, InsertAfter:
		spans, err = o.sectionOp(op)
	case ReplaceText:
		spans, err = o.replaceText(op)
	case SetFrontmatter:
		spans, err = o.setKey(op.Key, op.Value)
	case RemoveFrontmatter:
		spans, err = o.removeKey(op.Key)
	default:
		return nil, argErr("operation %q is not one of %s", op.Operation, operationList())
	}
	if err != nil {
		return nil, err
	}
	// A span that writes what is there already changes nothing.
	spans = slices.DeleteFunc(spans, func(s Span) bool { return o.raw[s.Start:s.End] == s.Text })
	return &Edit{Out: []byte(splice(o.raw, spans)), Spans: spans}, nil
}

func operationList() string {
	names := make([]string, len(Operations))
	for i, op := range Operations {
		names[i] = string(op)
	}
	return strings.Join(names, ", ")
}

// splice returns raw with spans (in order) applied.
func splice(raw string, spans []Span) string {
	var b strings.Builder
	last := 0
	for _, s := range spans {
		b.WriteString(raw[last:s.Start])
		b.WriteString(s.Text)
		last = s.End
	}
	b.WriteString(raw[last:])
	return b.String()
}

// block returns content with its line breaks in the note's style and
// without trailing line breaks.
func (o *outline) block(content string) string {
	s := strings.ReplaceAll(content, "\r\n", "\n")
	s = strings.TrimRight(s, "\n")
	if o.eol != "\n" {
		s = strings.ReplaceAll(s, "\n", o.eol)
	}
	return s
}

// insert is a span adding the lines of block at pos, a line start (or the
// end of the file): blank adds an empty line before them. At the end of
// a file that ends without a line break, the break goes before the block
// instead of after it, so the file still ends as it did.
func (o *outline) insert(pos int, block string, blank bool) Span {
	pre := ""
	if blank {
		pre = o.eol
	}
	if pos == len(o.raw) && pos > o.bom && !strings.HasSuffix(o.raw, "\n") {
		return Span{pos, pos, o.eol + pre + block}
	}
	post := ""
	if o.setextAt(pos) {
		// Lines right above a setext heading's text would join it: a
		// blank line keeps the heading what it was.
		post = o.eol
	}
	return Span{pos, pos, pre + block + o.eol + post}
}

// setextAt reports whether a setext heading starts at pos.
func (o *outline) setextAt(pos int) bool {
	for _, h := range o.heads {
		if h.start == pos {
			return strings.Count(o.raw[h.start:h.body], "\n") > 1 || !strings.HasPrefix(o.raw[h.start:], "#")
		}
	}
	return false
}

func (o *outline) sectionOp(op Op) ([]Span, error) {
	if strings.TrimSpace(op.Content) == "" && op.Operation != ReplaceSection {
		return nil, argErr("content is empty; give the text to %s", strings.ReplaceAll(string(op.Operation), "_", " "))
	}
	content := o.block(op.Content)
	if op.Heading == "" {
		switch op.Operation {
		case Append:
			return []Span{o.insert(o.lastContent(o.body, len(o.raw)), content, false)}, nil
		case Prepend:
			return []Span{o.insert(o.firstContent(o.body, len(o.raw)), content, false)}, nil
		}
		return nil, argErr("%s needs heading: the section to act on, such as \"## Today\" or \"Projects > Q1\"", op.Operation)
	}
	i, err := o.findSection(op.Heading)
	if err != nil {
		return nil, err
	}
	h := o.heads[i]
	switch op.Operation {
	case Append:
		return []Span{o.insert(o.lastContent(h.body, o.ownEnd(i)), content, false)}, nil
	case Prepend:
		return []Span{o.insert(o.firstContent(h.body, o.ownEnd(i)), content, false)}, nil
	case InsertAfter:
		first := strings.TrimLeftFunc(content, unicode.IsSpace)
		if _, _, ok := atxHeading(first[:max(0, strings.Index(first+"\n", "\n"))]); !ok {
			return nil, argErr("insert_after adds a new section: content must start with its heading line, such as \"## Notes\"")
		}
		return []Span{o.insert(o.lastContent(h.start, h.end), content, true)}, nil
	default: // ReplaceSection
		end := o.lastContent(h.body, h.end)
		if content == "" {
			return []Span{{h.body, end, ""}}, nil
		}
		if end == h.body { // an empty section: add the lines after its heading
			return []Span{o.insert(h.body, content, false)}, nil
		}
		if end == len(o.raw) && !strings.HasSuffix(o.raw, "\n") {
			return []Span{{h.body, end, content}}, nil
		}
		return []Span{{h.body, end, content + o.eol}}, nil
	}
}

// replaceText replaces every occurrence of op.OldText, which must occur
// exactly op.ExpectedCount times (1 when 0). Line breaks in the texts
// match the note's own: "\n" finds "\r\n" in a CRLF note.
func (o *outline) replaceText(op Op) ([]Span, error) {
	want := op.ExpectedCount
	if want == 0 {
		want = 1
	}
	if want < 0 {
		return nil, argErr("expected_count must be 1 or more, got %d", want)
	}
	if op.OldText == "" {
		return nil, argErr("old_text is empty; give the exact text to replace, with enough around it to be unique")
	}
	old, repl := op.OldText, op.NewText
	if o.eol == "\r\n" && !strings.Contains(o.raw, old) {
		old = strings.ReplaceAll(strings.ReplaceAll(old, "\r\n", "\n"), "\n", "\r\n")
		repl = strings.ReplaceAll(strings.ReplaceAll(repl, "\r\n", "\n"), "\n", "\r\n")
	}
	var spans []Span
	for pos := o.bom; ; {
		k := strings.Index(o.raw[pos:], old)
		if k < 0 {
			break
		}
		spans = append(spans, Span{pos + k, pos + k + len(old), repl})
		pos += k + len(old)
	}
	if len(spans) == want {
		return spans, nil
	}
	switch {
	case len(spans) == 0:
		msg := "old_text was not found in the note (it must match exactly, letter case, blanks and line breaks included)"
		if at := o.nearMatch(op.OldText); at > 0 {
			msg += "; a text that differs only in letter case or blanks is at line " + itoa(at)
		}
		return nil, argErr("%s", msg)
	case want == 1:
		var lines []string
		for _, s := range spans[:min(len(spans), 10)] {
			lines = append(lines, itoa(o.lineOf(s.Start)))
		}
		return nil, argErr("old_text occurs %d times (lines %s), not once: add text around it to make it unique, or set expected_count to %d to replace them all", len(spans), strings.Join(lines, ", "), len(spans))
	default:
		return nil, argErr("old_text occurs %d times, not %d as expected_count says; nothing was changed", len(spans), want)
	}
}

// nearMatch returns the line of a text equal to s up to letter case and
// blanks, 0 for none: the usual reason an exact match fails.
func (o *outline) nearMatch(s string) int {
	norm := func(s string) (string, []int) {
		var b strings.Builder
		var at []int
		space := false
		for i, r := range s {
			if unicode.IsSpace(r) {
				space = true
				continue
			}
			if space && b.Len() > 0 {
				b.WriteByte(' ')
				at = append(at, i)
			}
			space = false
			b.WriteString(strings.ToLower(string(r)))
			for range len(strings.ToLower(string(r))) {
				at = append(at, i)
			}
		}
		return b.String(), at
	}
	want, _ := norm(s)
	if want == "" {
		return 0
	}
	text, at := norm(o.raw)
	if k := strings.Index(text, want); k >= 0 {
		return o.lineOf(at[k])
	}
	return 0
}

func itoa(n int) string { return strconv.Itoa(n) }
