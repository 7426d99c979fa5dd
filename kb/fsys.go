package kb

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/vaultgraph/vaultgraph/confine"
	"github.com/vaultgraph/vaultgraph/core"
	"golang.org/x/text/unicode/norm"
)

// Every file operation of the Service outside Files (metadata reads and
// writes, folders it creates or removes, list_notes' walk) goes through
// s.fs, a confine.Root on the vault: each path is walked from the vault's
// handle one name at a time without following a symbolic link, so no
// path, link or folder swapped for a link mid-operation makes it act
// outside the vault (see package confine). Notes themselves go through
// Files, the vault's writer, which is confined the same way.

// maxMetaBytes bounds a metadata file read into memory (meta.md, a
// constraint, the plugin's list cache); real ones are a few kilobytes.
const maxMetaBytes = 4 << 20

// readMeta reads a metadata file; a missing file wraps fs.ErrNotExist.
func (s *Service) readMeta(rel string) ([]byte, error) {
	data, _, err := s.fs.ReadFile(rel, maxMetaBytes)
	return data, err
}

// writeMeta replaces (or creates) a metadata file atomically, creating
// its folder.
func (s *Service) writeMeta(rel string, data []byte) error {
	if err := s.fs.Replace(rel, data, confine.WriteOptions{}); err != nil {
		return fmt.Errorf("kb: write %s: %w", rel, err)
	}
	return nil
}

// exists reports whether anything (file, folder, link) is at rel.
func (s *Service) exists(rel string) bool {
	_, err := s.fs.Stat(rel)
	return err == nil
}

// foldKey is how two names compare when letter case and Unicode form are
// ignored (the vault's rule: "Café" and "cafe\u0301" are one name to a
// person and on macOS).
func foldKey(p string) string { return norm.NFC.String(strings.ToLower(p)) }

// folder resolves the clean vault-relative folder dir, given by a caller
// as arg (given is what the caller wrote, for messages), against the
// disk: each name that exists as a folder is kept; one that exists in
// another letter case or Unicode form is taken as it is on disk (no twin
// folder); two such folders are an error naming them. A symbolic link or
// a file in the way (exactly, or in another letter case) is
// invalid_note_path naming it. With create, a name that does not exist
// must pass core.CheckNewName (the rule every toolset follows for names
// it creates) and is taken in NFC; without, missing names are kept as
// given (the caller then finds nothing there).
func (s *Service) folder(arg, given, dir string, create bool) (string, error) {
	bad := func(format string, args ...any) error {
		return newError(CodeInvalidNotePath, "%s %q is not allowed: %s", arg, given, fmt.Sprintf(format, args...))
	}
	out := ""
	missing := false
	for _, seg := range segments(dir) {
		if missing {
			if create {
				seg = norm.NFC.String(seg)
				if err := core.CheckNewName(seg); err != nil {
					return "", bad("%s", nameWhy(err))
				}
			}
			out = joinRel(out, seg)
			continue
		}
		here := joinRel(out, seg)
		info, err := s.fs.Stat(here)
		switch {
		case err == nil && info.Mode&fs.ModeSymlink != 0:
			return "", bad("%q is a symbolic link, which vaultgraph does not follow", here)
		case err == nil && !info.IsDir():
			return "", bad("%q is a file, not a folder", here)
		case err == nil:
			out = here
			continue
		case !errors.Is(err, fs.ErrNotExist):
			return "", pathError(arg, given, here, err)
		}
		entries, err := s.fs.ReadDir(out)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", pathError(arg, given, out, err)
		}
		var dirs, files []string
		for _, e := range entries {
			if foldKey(e.Name()) != foldKey(seg) {
				continue
			}
			if e.IsDir() {
				dirs = append(dirs, e.Name())
			} else {
				files = append(files, e.Name())
			}
		}
		switch {
		case len(dirs) == 1:
			out = joinRel(out, dirs[0])
		case len(dirs) > 1:
			slices.Sort(dirs)
			return "", bad("several folders match %q in letter case: %s; give the exact name", seg, strings.Join(quoteAll(prefixAll(out, dirs)), ", "))
		case len(files) > 0:
			slices.Sort(files)
			return "", bad("%q is a file, not a folder", joinRel(out, files[0]))
		default:
			missing = true
			if create {
				seg = norm.NFC.String(seg)
				if err := core.CheckNewName(seg); err != nil {
					return "", bad("%s", nameWhy(err))
				}
			}
			out = joinRel(out, seg)
		}
	}
	return out, nil
}

// mkdirs creates the folders of the clean vault-relative path dir that
// are missing and returns them, outermost first, so that a failed
// operation can remove what it made (removeDirs).
func (s *Service) mkdirs(dir string) ([]string, error) {
	var made []string
	cur := ""
	for _, seg := range segments(dir) {
		cur = joinRel(cur, seg)
		if _, err := s.fs.Stat(cur); err == nil {
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return made, err
		}
		if err := s.fs.MkdirAll(cur); err != nil {
			return made, err
		}
		made = append(made, cur)
	}
	return made, nil
}

// removeDirs removes the folders mkdirs made, innermost first, each only
// if it is still empty (something written there meanwhile stays).
func (s *Service) removeDirs(made []string) {
	for i := len(made) - 1; i >= 0; i-- {
		if err := s.fs.RemoveDir(made[i]); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.log.Warn("kb: could not remove a folder made by a failed operation", "folder", made[i], "err", err)
		}
	}
}

// pathError maps a confine failure on the path given as arg to
// invalid_note_path naming what is in the way (a symbolic link, a file
// where a folder is needed); any other failure stays a plain error.
func pathError(arg, given, rel string, err error) error {
	var bad *confine.BadNameError
	switch {
	case errors.As(err, &bad) && errors.Is(err, confine.ErrSymlink):
		return newError(CodeInvalidNotePath, "%s %q is not allowed: %q is a symbolic link, which vaultgraph does not follow", arg, given, bad.Path)
	case errors.As(err, &bad):
		return newError(CodeInvalidNotePath, "%s %q is not allowed: %q is a file, not a folder", arg, given, bad.Path)
	}
	return fmt.Errorf("kb: %s: %w", rel, err)
}

// nameWhy is what core.CheckNewName found wrong, as a clause.
func nameWhy(err error) string {
	var ipe *core.InvalidPathError
	if errors.As(err, &ipe) {
		return fmt.Sprintf("%s (%q)", ipe.Why, ipe.Name)
	}
	return err.Error()
}

func prefixAll(dir string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = joinRel(dir, n)
	}
	return out
}

// walkNotes lists the notes (".md" files, any letter case) under the
// clean vault-relative folder dir, sorted, reading every folder through
// the vault's handle: hidden names, symbolic links and anything else that
// is not a regular file or a folder are left out, and a folder swapped
// for a link while it is walked is skipped, never followed. A folder that
// does not exist, or is not a folder, has no notes.
func (s *Service) walkNotes(dir string) ([]string, error) {
	paths := []string{}
	entries, err := s.fs.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, confine.ErrNotDir) || errors.Is(err, confine.ErrSymlink) {
		return paths, nil
	}
	if err != nil {
		return nil, fmt.Errorf("kb: list %s: %w", displayFolder(dir), err)
	}
	queue := []string{}
	for {
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") {
				continue
			}
			switch rel := joinRel(dir, name); {
			case e.IsDir():
				queue = append(queue, rel)
			case e.Type().IsRegular() && isNoteName(name):
				paths = append(paths, rel)
			}
		}
		if len(queue) == 0 {
			break
		}
		dir, queue = queue[0], queue[1:]
		if entries, err = s.fs.ReadDir(dir); err != nil {
			s.log.Warn("kb: skipping a folder that cannot be read while listing notes", "folder", dir, "err", err)
			entries = nil
		}
	}
	slices.Sort(paths)
	return paths, nil
}
