package vault

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// isTagRune reports whether r may appear in a tag: letters (any script),
// marks, digits, "_", "-" and "/" (nesting), as Obsidian allows.
func isTagRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '_' || r == '-' || r == '/'
}

// validTag reports whether t (without "#") is a tag Obsidian accepts: only
// tag runes, and not a number alone ("#123" is not a tag, "#y2024" is).
func validTag(t string) bool {
	if t == "" {
		return false
	}
	numeric := true
	for _, r := range t {
		if !isTagRune(r) {
			return false
		}
		if !unicode.IsDigit(r) && r != '/' {
			numeric = false
		}
	}
	return !numeric
}

// cleanTag trims the "#" and the nesting slashes a tag cannot start or end
// with ("#a/b/" is "a/b").
func cleanTag(t string) string {
	return strings.Trim(strings.TrimLeft(strings.TrimSpace(t), "#"), "/")
}

// frontmatterTags reads the `tags` (or legacy `tag`) property: a YAML list
// or a string of tags separated by commas or blanks, each with or without
// "#". Keys match case-insensitively. Values that are not valid tags give
// a warning and are left out.
func frontmatterTags(path string, fm map[string]any) (tags, warnings []string) {
	var keys []string
	for key := range fm {
		if strings.EqualFold(key, "tags") || strings.EqualFold(key, "tag") {
			keys = append(keys, key)
		}
	}
	// "tags" before "tag", and a fixed order among spellings, so the
	// first spelling kept does not depend on map order.
	sort.Slice(keys, func(i, j int) bool {
		if len(keys[i]) != len(keys[j]) {
			return len(keys[i]) > len(keys[j])
		}
		return keys[i] < keys[j]
	})
	for _, key := range keys {
		var raw []string
		switch t := fm[key].(type) {
		case nil:
		case []any:
			for _, item := range t {
				if item != nil {
					raw = append(raw, splitTagList(fmt.Sprint(item))...)
				}
			}
		default:
			raw = splitTagList(fmt.Sprint(t))
		}
		for _, r := range raw {
			tag := cleanTag(r)
			if !validTag(tag) {
				warnings = append(warnings, fmt.Sprintf("%s: frontmatter: invalid tag ignored: %s", path, r))
				continue
			}
			tags = append(tags, tag)
		}
	}
	return tags, warnings
}

// splitTagList splits a tag string at commas and blanks.
func splitTagList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
}

// inlineTags returns the #tags of masked prose, in order. A tag starts with
// "#" at the start of a line or after a blank (so "a#b", "http://x/#frag",
// "[[note#heading]]" and "\#escaped" are not tags), runs over tag runes,
// and must not be a number alone. A heading's leading "#" is followed by a
// blank, so it is never a tag.
func inlineTags(masked []byte) []string {
	var tags []string
	eachInlineTag(masked, func(tag string, _ int) { tags = append(tags, tag) })
	return tags
}

// eachInlineTag calls fn with each inline tag of masked (see inlineTags)
// and the offset of its "#".
func eachInlineTag(masked []byte, fn func(tag string, at int)) {
	for i := 0; i < len(masked); i++ {
		if masked[i] != '#' {
			continue
		}
		if i > 0 {
			prev, _ := utf8.DecodeLastRune(masked[:i])
			if !unicode.IsSpace(prev) {
				continue
			}
		}
		j := i + 1
		for j < len(masked) {
			r, size := utf8.DecodeRune(masked[j:])
			if !isTagRune(r) {
				break
			}
			j += size
		}
		if tag := strings.Trim(string(masked[i+1:j]), "/"); validTag(tag) {
			fn(tag, i)
		}
		i = j - 1
	}
}

// unTagBody returns a note file whose body's inline tags that are not
// among keep (compared case-insensitively) are escaped ("\#c"): Obsidian
// shows "#c" as text, and the note's tags are then its frontmatter's and
// those of keep written inline. update_node's tags replace the note's tags
// (spec 000) without deleting a word of its text.
func unTagBody(notePath string, raw []byte, keep []string) []byte {
	p := parseNote(notePath, raw)
	text := string(raw[p.bom:])
	base := p.bodyAt - p.bom
	masked := maskInto(nil, text[base:])
	for _, s := range p.spans {
		if s.start >= base {
			blank(masked, s.start-base, s.end-base)
		}
	}
	kept := map[string]bool{}
	for _, t := range keep {
		kept[strings.ToLower(t)] = true
	}
	var at []int
	eachInlineTag(masked, func(tag string, i int) {
		if !kept[strings.ToLower(tag)] {
			at = append(at, p.bom+base+i)
		}
	})
	if len(at) == 0 {
		return raw
	}
	out := make([]byte, 0, len(raw)+len(at))
	last := 0
	for _, i := range at {
		out = append(out, raw[last:i]...)
		out = append(out, '\\')
		last = i
	}
	return append(out, raw[last:]...)
}

// dedupeTags keeps the first spelling of each tag compared case-insensitively.
// A dropped duplicate is reported "Duplicate tag ignored: <tag>" when it was
// listed twice in the frontmatter or is spelled differently from the kept
// one (#ML after #ml); repeating an inline tag as written, or writing a
// frontmatter tag again in the body, is ordinary Obsidian use and silent.
func dedupeTags(fmTags, bodyTags []string) (tags, warnings []string) {
	kept := map[string]string{}
	add := func(t string, fromFrontmatter bool) {
		key := strings.ToLower(t)
		first, seen := kept[key]
		if !seen {
			kept[key] = t
			tags = append(tags, t)
			return
		}
		if fromFrontmatter || first != t {
			warnings = append(warnings, "Duplicate tag ignored: "+t)
		}
	}
	for _, t := range fmTags {
		add(t, true)
	}
	for _, t := range bodyTags {
		add(t, false)
	}
	return tags, warnings
}
