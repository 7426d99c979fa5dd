package noteedit

import (
	"fmt"
	"strings"
)

// diffContext is how many unchanged lines a diff shows around a change.
const diffContext = 2

// MaxDiffBytes caps a diff in an answer: a section replaced whole can be
// long, and the model sent that text itself.
const MaxDiffBytes = 16 << 10

// Diff returns the unified diff of an edit of raw (the file before it) at
// path: one hunk per group of nearby spans, with diffContext lines of
// context. It is made from the spans, not by comparing the two files, so
// it shows exactly what the edit changed, in time linear in the note.
// Line breaks are not shown (a CRLF note reads as an LF one). "" when
// the edit changed nothing.
func Diff(path string, raw []byte, spans []Span) string {
	if len(spans) == 0 {
		return ""
	}
	text := string(raw)
	starts := lineStarts(text)
	lineAt := func(pos int) int { // index of the line holding pos
		lo, hi := 0, len(starts)
		for lo+1 < hi {
			mid := (lo + hi) / 2
			if starts[mid] <= pos {
				lo = mid
			} else {
				hi = mid
			}
		}
		return lo
	}
	type change struct {
		from, to int      // old lines [from, to)
		add      []string // the new lines replacing them
	}
	var changes []change
	for k := 0; k < len(spans); {
		s := spans[k]
		from := lineAt(s.Start)
		if s.Start == s.End && s.Start == starts[from] { // lines inserted
			changes = append(changes, change{from, from, splitLines(s.Text)})
			k++
			continue
		}
		// The lines the span touches change whole, with those of the
		// spans after it that touch the same lines.
		lineSpan := func(s Span) (int, int) {
			from := lineAt(s.Start)
			if s.End > s.Start {
				return from, lineAt(s.End-1) + 1
			}
			return from, from + 1
		}
		from, to := lineSpan(s)
		group := []Span{s}
		for k++; k < len(spans); k++ {
			f, t := lineSpan(spans[k])
			if f >= to {
				break
			}
			group = append(group, spans[k])
			to = max(to, t)
		}
		segStart, segEnd := starts[from], lineEnd(text, starts, to-1)
		var seg strings.Builder
		last := segStart
		for _, g := range group {
			seg.WriteString(text[last:g.Start])
			seg.WriteString(g.Text)
			last = g.End
		}
		seg.WriteString(text[last:segEnd])
		changes = append(changes, change{from, to, splitLines(seg.String())})
	}
	old := splitLines(text)
	var b strings.Builder
	fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", path, path)
	delta := 0
	for i := 0; i < len(changes); {
		j := i
		for j+1 < len(changes) && changes[j+1].from-changes[j].to <= 2*diffContext {
			j++
		}
		a := max(0, changes[i].from-diffContext)
		z := min(len(old), changes[j].to+diffContext)
		var body []string
		added := 0
		pos := a
		for k := i; k <= j; k++ {
			c := changes[k]
			for ; pos < c.from; pos++ {
				body = append(body, " "+old[pos])
			}
			for ; pos < c.to; pos++ {
				body = append(body, "-"+old[pos])
			}
			for _, l := range c.add {
				body = append(body, "+"+l)
			}
			added += len(c.add) - (c.to - c.from)
		}
		for ; pos < z; pos++ {
			body = append(body, " "+old[pos])
		}
		oldN, newN := z-a, z-a+added
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(a, oldN), hunkRange(a+delta, newN))
		for _, l := range body {
			b.WriteString(l)
			b.WriteByte('\n')
		}
		delta += added
		i = j + 1
	}
	out := b.String()
	if len(out) > MaxDiffBytes {
		cut := strings.LastIndexByte(out[:MaxDiffBytes], '\n') + 1
		out = out[:cut] + fmt.Sprintf("... (diff cut at %d of %d bytes)\n", cut, len(out))
	}
	return out
}

// hunkRange is a unified diff's "start,count" (1-based; an empty range
// names the line before it).
func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// lineStarts returns the offset of every line of text, plus len(text) when
// text ends with a line break (the start of the empty "line" after it)
// or is empty.
func lineStarts(text string) []int {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineEnd is the offset after line i's line break (or the end of text).
func lineEnd(text string, starts []int, i int) int {
	if i+1 < len(starts) {
		return starts[i+1]
	}
	return len(text)
}

// splitLines splits text into lines without their breaks; a final line
// break ends the last line rather than starting an empty one.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	text = strings.TrimSuffix(text, "\n")
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}
