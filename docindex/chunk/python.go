package chunk

import (
	"strings"
)

// Python cuts Python source by top-level definitions. Rules:
//   - Each top-level def, async def and class is one piece, starting at
//     its decorators and at the comment lines directly above it (no blank
//     line between), ending where the next top-level statement starts.
//     HeaderPath is "def name" or "class name".
//   - Everything else at top level (the module docstring, imports,
//     constants, an `if __name__ == "__main__":` block) is "module" code:
//     consecutive module code is one piece.
//   - Lines inside triple-quoted strings, brackets or after a backslash
//     continuation are never taken for top-level statements, so a
//     docstring or an argument list written at column 0 does not cut.
//   - A piece longer than MaxChars is split at line boundaries, each part
//     after the first starting with the last lines of the part before (at
//     most OverlapChars characters); a single longer line is cut at code
//     points.
func Python(s string) []Piece {
	lines := strings.Split(normalize(s), "\n")
	top := topLevel(lines)

	type segment struct {
		start int
		name  string
	}
	var segs []segment
	inDef := false
	for i := 0; i < len(lines); i++ {
		if !top[i] {
			continue
		}
		t := lines[i]
		if isDef(t) || strings.HasPrefix(t, "@") {
			// Find the definition these decorators belong to.
			j := i
			for j < len(lines) && !(top[j] && isDef(lines[j])) {
				if top[j] && j > i && !strings.HasPrefix(lines[j], "@") && !strings.HasPrefix(lines[j], "#") {
					j = len(lines) // decorators without a definition
					break
				}
				j++
			}
			name := "module"
			if j < len(lines) {
				name, _ = defName(lines[j])
			}
			start := i
			for start > 0 && top[start-1] && strings.HasPrefix(lines[start-1], "#") {
				start--
			}
			if len(segs) > 0 && segs[len(segs)-1].start >= start {
				start = segs[len(segs)-1].start + 1
			}
			if len(segs) == 0 && name != "module" && start > 0 {
				segs = append(segs, segment{start: 0, name: "module"})
			}
			segs = append(segs, segment{start: start, name: name})
			if j < len(lines) {
				i = j
			}
			inDef = name != "module"
			continue
		}
		if strings.HasPrefix(t, "#") {
			continue // a comment goes with what follows it
		}
		if inDef || len(segs) == 0 {
			start := i
			for start > 0 && top[start-1] && strings.HasPrefix(lines[start-1], "#") {
				start--
			}
			if len(segs) == 0 {
				start = 0
			}
			segs = append(segs, segment{start: start, name: "module"})
			inDef = false
		}
	}
	if len(segs) == 0 || segs[0].start > 0 {
		segs = append([]segment{{start: 0, name: "module"}}, segs...)
	}

	var out []Piece
	for k, sg := range segs {
		end := len(lines)
		if k+1 < len(segs) {
			end = segs[k+1].start
		}
		if end <= sg.start {
			continue
		}
		body := strings.Trim(strings.Join(lines[sg.start:end], "\n"), "\n")
		if strings.TrimSpace(body) == "" {
			continue
		}
		if n := len(out); n > 0 && sg.name == "module" && out[n-1].HeaderPath == "module" {
			body = out[n-1].Content + "\n\n" + body
			out = out[:n-1]
		}
		for _, c := range packLines(strings.Split(body, "\n")) {
			out = append(out, Piece{Content: c, HeaderPath: sg.name})
		}
	}
	// Merging module parts above may have left a module piece over the
	// limit only when it was packed before merging; re-pack those.
	var fixed []Piece
	for _, p := range out {
		if runes(p.Content) <= MaxChars {
			fixed = append(fixed, p)
			continue
		}
		for _, c := range packLines(strings.Split(p.Content, "\n")) {
			fixed = append(fixed, Piece{Content: c, HeaderPath: p.HeaderPath})
		}
	}
	return fixed
}

// isDef reports whether a top-level line starts a def or class.
func isDef(line string) bool {
	_, ok := defName(line)
	return ok
}

// defName returns "def f" or "class C" for a top-level definition line.
func defName(line string) (string, bool) {
	for _, kw := range []string{"async def ", "def ", "class "} {
		if !strings.HasPrefix(line, kw) {
			continue
		}
		rest := strings.TrimSpace(line[len(kw):])
		end := strings.IndexAny(rest, "(:[ \t")
		if end < 0 {
			end = len(rest)
		}
		if end == 0 {
			return "", false
		}
		return strings.TrimSuffix(strings.TrimPrefix(kw, "async "), " ") + " " + rest[:end], true
	}
	return "", false
}

// topLevel marks the lines that start a top-level statement or are a
// top-level comment: not indented, not blank, and not inside a
// triple-quoted string, brackets or a backslash continuation.
func topLevel(lines []string) []bool {
	top := make([]bool, len(lines))
	triple := "" // the open triple quote, if any
	depth := 0
	cont := false
	for i, line := range lines {
		top[i] = triple == "" && depth == 0 && !cont && line != "" && line[0] != ' ' && line[0] != '\t'
		cont = false
		for j := 0; j < len(line); j++ {
			c := line[j]
			if triple != "" {
				if strings.HasPrefix(line[j:], triple) {
					j += 2
					triple = ""
				} else if c == '\\' {
					j++
				}
				continue
			}
			switch c {
			case '#':
				j = len(line)
			case '"', '\'':
				if strings.HasPrefix(line[j:], strings.Repeat(string(c), 3)) {
					triple = strings.Repeat(string(c), 3)
					j += 2
					continue
				}
				// A one-line string: skip to its closing quote.
				for j++; j < len(line) && line[j] != c; j++ {
					if line[j] == '\\' {
						j++
					}
				}
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				if depth > 0 {
					depth--
				}
			case '\\':
				if j == len(line)-1 {
					cont = true
				}
			}
		}
	}
	return top
}

// packLines packs lines into pieces of at most MaxChars characters; each
// piece after the first repeats the last whole lines of the previous one
// that fit in OverlapChars.
func packLines(lines []string) []string {
	var parts []string
	for _, l := range lines {
		for runes(l) > unitLimit {
			head, rest := cutRunes(l, unitLimit)
			parts = append(parts, head)
			l = rest
		}
		parts = append(parts, l)
	}
	var out []string
	var cur []string
	curLen := 0
	for _, l := range parts {
		n := runes(l)
		if len(cur) > 0 && curLen+1+n > MaxChars {
			out = append(out, strings.Join(cur, "\n"))
			// Overlap: the last lines of cur that fit.
			var ov []string
			ovLen := 0
			for k := len(cur) - 1; k >= 0; k-- {
				m := runes(cur[k]) + 1
				if ovLen+m > OverlapChars {
					break
				}
				ov = append([]string{cur[k]}, ov...)
				ovLen += m
			}
			cur, curLen = ov, ovLen
		}
		if len(cur) == 0 {
			curLen = n
		} else {
			curLen += 1 + n
		}
		cur = append(cur, l)
	}
	if s := strings.Join(cur, "\n"); strings.TrimSpace(s) != "" {
		out = append(out, s)
	}
	return out
}
