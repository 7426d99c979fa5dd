package vault

import (
	"fmt"
	"regexp"
	"strings"
)

// ignoreMatcher decides which vault paths the mirror skips besides
// dot-files and dot-folders (.obsidian, .trash, .git), which it always
// skips.
//
// Patterns are globs over vault-relative paths with "/" separators: "*"
// and "?" match within one path segment, "**" matches across segments. A
// pattern without "/" matches a file or folder of that name anywhere
// ("*.excalidraw.md", "templates"); a pattern with "/" is anchored at the
// vault root ("archive/2019", "daily/**/draft-*.md"). A matching folder
// excludes everything below it.
type ignoreMatcher struct {
	res []*regexp.Regexp
}

func newIgnoreMatcher(patterns []string) (*ignoreMatcher, error) {
	m := &ignoreMatcher{}
	for _, p := range patterns {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		anchored := strings.Contains(strings.TrimSuffix(p, "/"), "/")
		p = strings.Trim(p, "/")
		var b strings.Builder
		if anchored {
			b.WriteString("^")
		} else {
			b.WriteString("^(?:.*/)?")
		}
		for i := 0; i < len(p); i++ {
			switch {
			case strings.HasPrefix(p[i:], "**"):
				b.WriteString(".*")
				i++
			case p[i] == '*':
				b.WriteString("[^/]*")
			case p[i] == '?':
				b.WriteString("[^/]")
			default:
				b.WriteString(regexp.QuoteMeta(p[i : i+1]))
			}
		}
		b.WriteString("(?:/.*)?$")
		re, err := regexp.Compile(b.String())
		if err != nil {
			return nil, fmt.Errorf("vault: ignore pattern %q: %w", p, err)
		}
		m.res = append(m.res, re)
	}
	return m, nil
}

// skip reports whether the vault-relative path rel is left out: it or one
// of its folders starts with "." or matches a pattern.
func (m *ignoreMatcher) skip(rel string) bool {
	if hasDotSegment(rel) {
		return true
	}
	for _, re := range m.res {
		if re.MatchString(rel) {
			return true
		}
	}
	return false
}

// hasDotSegment reports whether a segment of rel starts with ".".
func hasDotSegment(rel string) bool {
	// Once per file of a walk: no slice of segments.
	for seg := range strings.SplitSeq(rel, "/") {
		if strings.HasPrefix(seg, ".") {
			return true
		}
	}
	return false
}
