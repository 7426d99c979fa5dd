package vault

import (
	"path"
	"sort"
	"strings"

	"github.com/vaultgraph/vaultgraph/core"

	"golang.org/x/text/unicode/norm"
)

// isNotePath reports whether a vault-relative path names a note: a ".md"
// file (extension compared case-insensitively).
func isNotePath(p string) bool {
	return strings.EqualFold(path.Ext(p), ".md")
}

// isNodePath reports whether a vault-relative path names a node of the
// graph: a note, an attachment or a canvas (core.KindOf; issue 45.2).
// The walk, the watcher and a restart take every such file.
func isNodePath(p string) bool {
	return isNotePath(p) || core.IsFileNode(p)
}

// stripExt removes the ".md" extension (in any letter case) of a note
// path. Every link resolution compares a stem (entry.stem). An attachment
// or a canvas keeps its extension: its keys and title are its file name
// with it, as Obsidian links it ([[pic.png]], [[board.canvas]]).
func stripExt(p string) string {
	if strings.HasSuffix(p, ".md") {
		return p[:len(p)-len(".md")]
	}
	if n := len(p) - 3; n >= 0 && strings.EqualFold(p[n:], ".md") {
		return p[:n]
	}
	return p
}

// titleFromPath is a note's default title: its file name without extension,
// as written.
func titleFromPath(p string) string {
	return stripExt(path.Base(p))
}

// NoteKeys returns the link keys a note at vault-relative path p answers
// to: every folder suffix of its lowercased path without extension, longest
// first ("a/b/c.md" → "a/b/c", "b/c", "c"). Keys are in Unicode NFC, so
// a file name stored decomposed (as macOS does) matches a link typed
// composed.
func NoteKeys(p string) []string {
	k := norm.NFC.String(strings.ToLower(stripExt(p)))
	keys := []string{k}
	for i := 0; i < len(k); i++ {
		if k[i] == '/' && i+1 < len(k) {
			keys = append(keys, k[i+1:])
		}
	}
	return keys
}

// groupKey is a path's collision group: lowercased, in Unicode NFC. Paths
// of one group look the same to a person (and are one file on macOS and
// Windows): "Notes/Café.md" written composed or decomposed, in any case.
func groupKey(p string) string {
	return norm.NFC.String(strings.ToLower(p))
}

// assignIDs gives every path of one collision group (see groupKey) its
// ID. A group of one gets the group key. In a larger group the path that
// already is its group key gets it, or, when none is, the first path in
// byte order does; every other path gets its exact path as ID. The result
// is keyed by path.
func assignIDs(group []string) map[string]string {
	ids := make(map[string]string, len(group))
	if len(group) == 0 {
		return ids
	}
	lower := groupKey(group[0])
	owner := ""
	for _, p := range group {
		if p == lower {
			owner = p
		}
	}
	if owner == "" {
		sorted := append([]string(nil), group...)
		sort.Strings(sorted)
		owner = sorted[0]
	}
	for _, p := range group {
		if p == owner {
			ids[p] = lower
		} else {
			ids[p] = p
		}
	}
	return ids
}
