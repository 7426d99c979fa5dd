package vault

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vaultgraph/vaultgraph/core"
)

// maxSegment is the longest file or folder name accepted, in bytes (the
// limit of common file systems).
const maxSegment = core.MaxNameBytes

// CleanPath checks a vault-relative path given by a client and returns it
// cleaned ("./a//b.md" → "a/b.md"; "" and "." are the vault root). It
// refuses, with an error wrapping core.ErrInvalidPath: NUL and other
// control characters, backslashes (never a separator, and a trap on
// Windows), absolute paths, any ".." segment, names starting with "."
// (.obsidian, .git and the like are not notes), names over 255 bytes,
// paths the vault's ignore globs exclude, any existing component that is a
// symbolic link (whether it leads outside the vault or not: the sync does
// not follow links either, so a note written through one would be
// invisible) and a path that runs through an existing file ("Home.md/x").
// The path need not exist. These checks say early what is wrong; the file
// operations themselves are confined as well (package confine), so a
// folder swapped for a link after the check changes nothing.
func (m *Mirror) CleanPath(p string) (string, error) {
	clean, err := cleanRelPath(p)
	if err != nil {
		return "", err
	}
	if clean != "" && m.ignore.skip(clean) {
		return "", fmt.Errorf("vault: path %q: %w: excluded from the vault", p, core.ErrInvalidPath)
	}
	if clean != "" {
		if info, err := m.fs.Stat(clean); err == nil && info.Mode&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("vault: path %q: %w: %q is a symbolic link, which vaultgraph does not follow", p, core.ErrInvalidPath, clean)
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fileError("check", clean, err)
		}
	}
	return clean, nil
}

// cleanRelPath does the lexical checks of CleanPath.
func cleanRelPath(p string) (string, error) {
	bad := func(why string) (string, error) {
		return "", fmt.Errorf("vault: path %q: %w: %s", p, core.ErrInvalidPath, why)
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return bad("control character")
		}
	}
	switch {
	case strings.Contains(p, `\`):
		return bad(`backslash`)
	case strings.HasPrefix(p, "/") || filepath.IsAbs(p) || filepath.VolumeName(p) != "" || len(p) >= 2 && p[1] == ':':
		return bad("absolute path")
	}
	var segs []string
	for _, seg := range strings.Split(p, "/") {
		switch {
		case seg == "" || seg == ".":
			continue
		case seg == "..":
			return bad("parent folder")
		case strings.HasPrefix(seg, "."):
			return bad("hidden name")
		case len(seg) > maxSegment:
			return bad("name too long")
		}
		segs = append(segs, seg)
	}
	return path.Join(segs...), nil
}

// cleanNotePath is CleanPath for a note file: it must name a ".md" file.
func (m *Mirror) cleanNotePath(p string) (string, error) {
	clean, err := m.CleanPath(p)
	if err != nil {
		return "", err
	}
	if clean == "" || !isNotePath(clean) {
		return "", fmt.Errorf("vault: path %q: %w: not a markdown note (.md)", p, core.ErrInvalidPath)
	}
	return clean, nil
}

// cleanNewNotePath is cleanNotePath for a note about to be created: its
// file name must also pass core.CheckNewName and hold none of the
// characters that end or split a wikilink, and is taken in Unicode NFC.
func (m *Mirror) cleanNewNotePath(p string) (string, error) {
	clean, err := m.cleanNotePath(p)
	if err != nil {
		return "", err
	}
	dir, name := dirOf(clean), core.NormalizeName(path.Base(clean))
	if err := core.CheckNewName(name); err != nil {
		return "", fmt.Errorf("vault: path %q: %w", p, err)
	}
	if strings.ContainsAny(name, newNameChars) {
		return "", fmt.Errorf("vault: path %q: %w: a note name may not contain any of %s", p, core.ErrInvalidPath, newNameChars)
	}
	return joinPath(dir, name), nil
}

// cleanNewDir is CleanPath for a folder argument of a tool that creates a
// note (create_node's directory): blanks around each name are dropped, as
// from a title. Names of folders to create are checked when the folder is
// looked up (existingDirCase).
func (m *Mirror) cleanNewDir(p string) (string, error) {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = strings.TrimSpace(s)
	}
	return m.CleanPath(strings.Join(segs, "/"))
}

// existingDirCase returns the folder dir as it exists on disk: each name
// that exists exactly is kept, one that exists in another letter case or
// Unicode form is taken as it is on disk (so create_node with "projects"
// writes into "Projects" instead of making a twin folder), and one that
// does not exist must pass core.CheckNewName and is taken in NFC. Two
// folders matching one name that way, or a file in the way, are errors
// naming them. m.mu must be held.
func (m *Mirror) existingDirCase(dir string) (string, error) {
	if dir == "" {
		return "", nil
	}
	out := ""
	missing := false
	for _, seg := range strings.Split(dir, "/") {
		if missing {
			seg = core.NormalizeName(seg)
			if err := core.CheckNewName(seg); err != nil {
				return "", fmt.Errorf("vault: folder %q: %w", dir, err)
			}
			out = joinPath(out, seg)
			continue
		}
		entries, err := m.fs.ReadDir(out)
		if err != nil {
			return "", fileError("read folder", out, err)
		}
		var exact fs.DirEntry
		var similar []string
		for _, d := range entries {
			switch {
			case d.Name() == seg:
				exact = d
			case groupKey(d.Name()) == groupKey(seg):
				if d.IsDir() {
					similar = append(similar, d.Name())
				}
			}
		}
		switch {
		case exact != nil && exact.Type()&fs.ModeSymlink != 0:
			return "", fmt.Errorf("vault: folder %q: %w", dir, &core.InvalidPathError{Name: joinPath(out, seg), Why: "it is a symbolic link, which vaultgraph does not follow"})
		case exact != nil && !exact.IsDir():
			return "", fmt.Errorf("vault: folder %q: %w", dir, &core.InvalidPathError{Name: joinPath(out, seg), Why: "it is a file, not a folder"})
		case exact != nil:
			out = joinPath(out, seg)
		case len(similar) == 1:
			out = joinPath(out, similar[0])
		case len(similar) > 1:
			sort.Strings(similar)
			return "", fmt.Errorf("vault: folder %q: %w", dir, &core.InvalidPathError{Name: joinPath(out, seg), Why: "several folders match it in letter case: " + strings.Join(similar, ", ") + "; give the exact name"})
		default:
			missing = true
			seg = core.NormalizeName(seg)
			if err := core.CheckNewName(seg); err != nil {
				return "", fmt.Errorf("vault: folder %q: %w", dir, err)
			}
			out = joinPath(out, seg)
		}
	}
	return out, nil
}

// existingNoteCase returns the path of the note rel names: rel itself when
// a note is there, else the one note whose path matches it in letter case
// and Unicode form (clients know the graph's lowercased IDs), else rel
// (the caller then finds nothing). Several such notes are an error naming
// them. m.mu must be held.
func (m *Mirror) existingNoteCase(rel string) (string, error) {
	if m.idx.byPath[rel] != nil {
		return rel, nil
	}
	group := m.idx.groupPaths(groupKey(rel))
	switch len(group) {
	case 0:
		return rel, nil
	case 1:
		return group[0], nil
	}
	sorted := append([]string(nil), group...)
	sort.Strings(sorted)
	return "", &core.InvalidPathError{Name: rel, Why: "several notes match it in letter case or Unicode form: " + strings.Join(sorted, ", ") + "; give the exact path"}
}
