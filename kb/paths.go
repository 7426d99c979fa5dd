package kb

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/vaultgraph/vaultgraph/core"
)

// maxSegment is the longest file or folder name accepted, in bytes.
const maxSegment = 255

// cleanRel checks a relative path given by a client, arg naming the
// argument for the message, and returns it cleaned: "/"-separated, no
// empty or "." segments, "" for the root of its frame. It refuses, with
// invalid_note_path: NUL and other control characters, backslashes (never
// a separator here, and one on Windows), absolute paths, ".." segments,
// names starting with "." (.llm_bridges, .obsidian and .git hold no notes,
// and the vault does not index them) and names over 255 bytes.
func cleanRel(arg, p string) (string, error) {
	bad := func(why string) (string, error) {
		return "", newError(CodeInvalidNotePath, "%s %q is not allowed: %s", arg, p, why)
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return bad("it contains a control character")
		}
	}
	switch {
	case strings.Contains(p, `\`):
		return bad(`use "/" to separate folders, not "\"`)
	case strings.HasPrefix(p, "/") || filepath.IsAbs(p) || len(p) >= 2 && p[1] == ':':
		return bad("it is absolute; give a relative path")
	}
	var segs []string
	for _, seg := range strings.Split(p, "/") {
		switch {
		case seg == "" || seg == ".":
			continue
		case seg == "..":
			return bad(`".." may not appear in a path`)
		case strings.HasPrefix(seg, "."):
			return bad(fmt.Sprintf("%q starts with a dot (hidden names are not notes)", seg))
		case len(seg) > maxSegment:
			return bad("a name in it is longer than 255 bytes")
		}
		segs = append(segs, seg)
	}
	return strings.Join(segs, "/"), nil
}

// lenientFolder cleans a folder path read from a file the plugin (or a
// person) wrote: leading and trailing "/" are dropped as the plugin does,
// then the rules of cleanRel apply.
func lenientFolder(p string) (string, error) {
	return cleanRel("subfolder", strings.Trim(strings.TrimSpace(p), "/"))
}

// segments splits a clean path; the root has none.
func segments(p string) []string {
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// within reports whether the clean path p is dir or lies below it,
// comparing whole segments case-insensitively ("notesX" is not inside
// "notes"; "Notes/a" is inside "notes", which on a case-insensitive file
// system is the same folder; Unicode forms are one name too). Every path
// is within the root "".
func within(p, dir string) bool {
	ps, ds := segments(p), segments(dir)
	if len(ds) > len(ps) {
		return false
	}
	for i, d := range ds {
		if ps[i] != d && foldKey(ps[i]) != foldKey(d) {
			return false
		}
	}
	return true
}

// overlaps reports whether two knowledge base folders share any note: one
// is within the other.
func overlaps(a, b string) bool { return within(a, b) || within(b, a) }

// isNoteName reports whether a file name is a markdown note's.
func isNoteName(name string) bool { return strings.EqualFold(path.Ext(name), ".md") }

// checkName refuses a knowledge base name that cannot be a new folder
// name: the rule every toolset follows for the names it creates
// (core.CheckNewName: reserved device names, control and text-direction
// characters, NUL, < > : " / \ | ? *, leading dots and blanks, trailing
// blanks and dots, over 255 bytes), and the name of the list cache.
func checkName(name string) error {
	bad := func(why string) error {
		return newError(CodeSchemaValidationFailed, "knowledge base name %q is not allowed: %s; choose another name", name, why)
	}
	if err := core.CheckNewName(name); err != nil {
		var ipe *core.InvalidPathError
		if errors.As(err, &ipe) {
			return bad(ipe.Why)
		}
		return bad(err.Error())
	}
	if strings.EqualFold(name, cacheFile) {
		return bad("it is the name of the list cache file")
	}
	return nil
}

// lookupName reports whether name could name an existing knowledge base
// folder at all (one name, not hidden, not the list cache); a name that
// could not is simply not found (and never touches the disk). It is
// lenient: a folder the plugin or a person made is found by its name even
// when checkName would refuse that name for a new one.
func lookupName(name string) bool {
	return name != "" && name != ".." && !strings.HasPrefix(name, ".") &&
		!strings.ContainsAny(name, "/\\\x00") && !strings.EqualFold(name, cacheFile)
}
