package noteedit

import (
	"fmt"
	"strconv"
	"strings"
)

// maxListedHeadings caps the headings an error lists, so an error on a
// long note stays short.
const maxListedHeadings = 30

// findSection returns the index of the heading a client's heading path
// names: "Today", "## Today" (a level given by its #s) or a path
// "Projects > Q1" (each part a heading inside the one before, at any
// depth). Text is compared with blanks collapsed, exactly first, then in
// any letter case. The whole argument is first tried as one heading's
// text, so a heading that contains " > " can still be named.
func (o *outline) findSection(path string) (int, error) {
	if strings.TrimSpace(path) == "" {
		return -1, argErr("heading is empty; name a heading of the note, such as \"## Today\" or \"Projects > Q1\"")
	}
	whole := []pathPart{parsePart(path)}
	parts := splitPath(path)
	for _, eq := range []func(a, b string) bool{exactEq, foldEq} {
		for _, try := range [][]pathPart{whole, parts} {
			if got := o.match(try, eq); len(got) == 1 {
				return got[0], nil
			} else if len(got) > 1 {
				return -1, o.ambiguous(path, got)
			}
		}
	}
	return -1, o.notFound(path)
}

// pathPart is one part of a heading path: its text and, when written with
// #s, its level.
type pathPart struct {
	level int
	text  string
}

func parsePart(s string) pathPart {
	s = strings.TrimSpace(s)
	if level, text, ok := atxHeading(s); ok {
		return pathPart{level, collapse(text)}
	}
	return pathPart{0, collapse(s)}
}

func splitPath(path string) []pathPart {
	var out []pathPart
	for _, p := range strings.Split(path, ">") {
		out = append(out, parsePart(p))
	}
	return out
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func exactEq(a, b string) bool { return a == b }
func foldEq(a, b string) bool  { return strings.EqualFold(a, b) }

// match returns the headings whose text matches the last part and that lie
// inside headings matching the earlier parts, in order.
func (o *outline) match(parts []pathPart, eq func(a, b string) bool) []int {
	fits := func(h heading, p pathPart) bool {
		return (p.level == 0 || p.level == h.level) && eq(collapse(h.text), p.text)
	}
	last := parts[len(parts)-1]
	var out []int
	for i, h := range o.heads {
		if !fits(h, last) {
			continue
		}
		k := len(parts) - 2
		for p := h.parent; p >= 0 && k >= 0; p = o.heads[p].parent {
			if fits(o.heads[p], parts[k]) {
				k--
			}
		}
		if k < 0 {
			out = append(out, i)
		}
	}
	return out
}

// pathOf is heading i's path as a client would write it.
func (o *outline) pathOf(i int) string {
	var parts []string
	for p := i; p >= 0; p = o.heads[p].parent {
		parts = append([]string{o.heads[p].text}, parts...)
	}
	return strings.Join(parts, " > ")
}

func (o *outline) ambiguous(path string, got []int) error {
	var where []string
	for _, i := range got {
		where = append(where, fmt.Sprintf("line %d: %q", o.heads[i].lineNo, o.pathOf(i)))
	}
	return argErr("heading %q names %d sections (%s); give its path from an enclosing heading, as listed", path, len(got), strings.Join(where, ", "))
}

func (o *outline) notFound(path string) error {
	if len(o.heads) == 0 {
		return argErr("heading %q not found: the note has no headings (a heading in a code block does not count); leave heading out to edit the whole note", path)
	}
	var list []string
	for i := range o.heads {
		if i == maxListedHeadings {
			list = append(list, "and "+strconv.Itoa(len(o.heads)-i)+" more")
			break
		}
		list = append(list, strconv.Quote(o.pathOf(i)))
	}
	return argErr("heading %q not found; the note's headings are %s", path, strings.Join(list, ", "))
}
