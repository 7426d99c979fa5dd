package kb

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
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
// system is the same folder). Every path is within the root "".
func within(p, dir string) bool {
	ps, ds := segments(p), segments(dir)
	if len(ds) > len(ps) {
		return false
	}
	for i, d := range ds {
		if !strings.EqualFold(ps[i], d) {
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

// checkNoSymlink refuses a clean vault-relative path when an existing
// component of it is a symbolic link (which could lead out of the vault;
// the vault neither follows nor indexes them).
func (s *Service) checkNoSymlink(arg, rel string) error {
	cur := s.root
	for _, seg := range segments(rel) {
		cur = filepath.Join(cur, seg)
		fi, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("kb: stat %s: %w", rel, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return newError(CodeInvalidNotePath, "%s %q is not allowed: %q is a symbolic link, which vaultgraph does not follow", arg, rel, seg)
		}
	}
	return nil
}

// checkName refuses a knowledge base name that cannot be one folder name
// on every common file system.
func checkName(name string) error {
	bad := func(why string) error {
		return newError(CodeSchemaValidationFailed, "knowledge base name %q is not allowed: %s", name, why)
	}
	switch {
	case strings.TrimSpace(name) == "":
		return bad("it is empty")
	case strings.HasPrefix(name, "."):
		return bad("it starts with a dot")
	case strings.HasSuffix(name, ".") || strings.HasSuffix(name, " ") || strings.HasPrefix(name, " "):
		return bad("it starts or ends with a blank, or ends with a dot")
	case len(name) > maxSegment:
		return bad("it is longer than 255 bytes")
	case strings.EqualFold(name, cacheFile):
		return bad("it is the name of the list cache file")
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(`/\:*?"<>|`, r) {
			return bad(`it may not contain control characters or any of / \ : * ? " < > |`)
		}
	}
	return nil
}

// lookupName reports whether name could name a knowledge base at all; a
// name that could not is simply not found (and never touches the disk).
func lookupName(name string) bool { return checkName(name) == nil }
