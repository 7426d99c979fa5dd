package docindex

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// root is an allowed folder: as configured (cleaned, absolute) and with
// its symbolic links resolved.
type root struct {
	clean, real string
}

func newRoots(dirs []string) ([]root, error) {
	var out []root
	seen := map[string]bool{}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, err
		}
		abs = filepath.Clean(abs)
		if seen[abs] {
			continue
		}
		seen[abs] = true
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			real = abs // a root that does not exist (yet) holds nothing
		}
		out = append(out, root{clean: abs, real: real})
	}
	return out, nil
}

// within reports whether p is dir or inside it; both are clean and
// absolute.
func within(dir, p string) bool {
	if p == dir {
		return true
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// absolute cleans a client's path: relative paths start at the first
// root. It refuses control characters (NUL included).
func (s *Service) absolute(p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", newError(ErrInvalid, "Path cannot be empty")
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return "", newError(ErrNotAllowed, "Path not allowed: %q contains a control character", p)
		}
	}
	if !filepath.IsAbs(p) {
		if len(s.roots) == 0 {
			return "", newError(ErrNotAllowed, "Path not allowed: %s (no document roots are configured)", p)
		}
		p = filepath.Join(s.roots[0].clean, p)
	}
	return filepath.Clean(p), nil
}

// resolve checks that a client's path may be read and returns it clean
// and absolute (symbolic links inside the roots kept as written). The
// checks run in an order that reveals nothing outside the roots: first
// the lexical containment, then existence, then containment with every
// link resolved.
func (s *Service) resolve(p string) (string, os.FileInfo, error) {
	abs, err := s.absolute(p)
	if err != nil {
		return "", nil, err
	}
	var r *root
	for i := range s.roots {
		if within(s.roots[i].clean, abs) {
			r = &s.roots[i]
			break
		}
	}
	if r == nil {
		return "", nil, s.notAllowed(p)
	}
	real, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, newError(ErrFileNotFound, "File not found: %s", abs)
	}
	if err != nil {
		return "", nil, newError(ErrReadFailed, "Failed to read file: %s", cleanErr(err))
	}
	inside := false
	for _, rt := range s.roots {
		if within(rt.real, real) {
			inside = true
			break
		}
	}
	if !inside {
		return "", nil, newError(ErrNotAllowed, "Path not allowed: %s is a symbolic link leading outside the allowed document roots", abs)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", nil, newError(ErrReadFailed, "Failed to read file: %s", cleanErr(err))
	}
	return abs, fi, nil
}

func (s *Service) notAllowed(p string) error {
	dirs := make([]string, len(s.roots))
	for i, r := range s.roots {
		dirs[i] = r.clean
	}
	return newError(ErrNotAllowed, "Path not allowed: %s is outside the allowed document roots (%s); add a folder to documents.allowed_roots to index it",
		p, strings.Join(dirs, ", "))
}

// cleanErr keeps the reason of a file system error without repeating the
// path (the message already names it).
func cleanErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
