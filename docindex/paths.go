package docindex

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Every file the document index reads is read through an os.Root handle of
// the allowed root it lies in: the kernel resolves each name beneath that
// handle (openat with O_NOFOLLOW, one component at a time), so no symbolic
// link, however it is swapped in, reaches a byte outside the roots. The
// names themselves are resolved here, a component at a time through the
// same handle, so that a symbolic link inside a root is followed to the
// file it names (its real path is the file's identity in the index: one
// file, one set of chunks), and a link leading out is refused with a
// message saying so. The file is then opened through the handle and
// checked to be the very file the resolution found (os.SameFile): a name
// swapped between the check and the open is read again, never trusted.

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

// locate finds the root holding the clean absolute path p, by its
// configured or its real name, and p's path relative to it.
func (s *Service) locate(p string) (*root, string, bool) {
	for i := range s.roots {
		r := &s.roots[i]
		for _, base := range []string{r.real, r.clean} {
			if within(base, p) {
				rel, err := filepath.Rel(base, p)
				if err == nil {
					return r, rel, true
				}
			}
		}
	}
	return nil, "", false
}

// target is a client's path resolved inside a root: every symbolic link
// followed, so Rel names no link, and Abs (the root's configured name
// joined with Rel) is the file's real path, its identity in the index.
type target struct {
	root   *root
	handle *os.Root // open on root.real; Close it
	Rel    string   // "." for the root itself
	Abs    string
	Info   os.FileInfo // Lstat of Rel through the handle (not a link)
}

// Close releases the root handle.
func (t *target) Close() { _ = t.handle.Close() }

// maxLinks bounds the symbolic links one resolution follows (Linux's
// limit), so a loop of links ends.
const maxLinks = 40

// resolve checks that a client's path may be read and resolves it inside
// its root. The checks run in an order that reveals nothing outside the
// roots: first the lexical containment (before the file system is asked
// anything), then, component by component through the root's handle,
// existence and the target of each symbolic link, which must lie inside a
// root too.
func (s *Service) resolve(p string) (*target, error) {
	abs, err := s.absolute(p)
	if err != nil {
		return nil, err
	}
	r, rel, ok := s.locate(abs)
	if !ok {
		return nil, s.notAllowed(p)
	}
	return s.follow(r, rel, abs)
}

// follow resolves rel inside r; asked is the path the client gave, for
// messages.
func (s *Service) follow(r *root, rel, asked string) (*target, error) {
	h, err := os.OpenRoot(r.real)
	if err != nil {
		return nil, fileError(asked, err)
	}
	links := 0
	parts := splitRel(rel)
	done := "."
	for i := 0; i < len(parts); i++ {
		next := filepath.Join(done, parts[i])
		fi, err := h.Lstat(next)
		if err != nil {
			_ = h.Close()
			return nil, fileError(asked, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			if i < len(parts)-1 && !fi.IsDir() {
				_ = h.Close()
				return nil, newError(ErrFileNotFound, "File not found: %s", asked)
			}
			done = next
			continue
		}
		if links++; links > maxLinks {
			_ = h.Close()
			return nil, newError(ErrReadFailed, "Failed to read file: %s: too many levels of symbolic links", asked)
		}
		dest, err := h.Readlink(next)
		if err != nil {
			_ = h.Close()
			return nil, fileError(asked, err)
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(r.real, done, dest)
		}
		dest = filepath.Join(append([]string{dest}, parts[i+1:]...)...)
		r2, rel2, ok := s.locate(dest)
		if !ok {
			_ = h.Close()
			return nil, newError(ErrNotAllowed, "Path not allowed: %s is a symbolic link leading outside the allowed document roots", asked)
		}
		if r2 != r {
			_ = h.Close()
			if h, err = os.OpenRoot(r2.real); err != nil {
				return nil, fileError(asked, err)
			}
			r = r2
		}
		parts, done, i = splitRel(rel2), ".", -1
	}
	fi, err := h.Lstat(done)
	if err != nil {
		_ = h.Close()
		return nil, fileError(asked, err)
	}
	return &target{root: r, handle: h, Rel: done, Abs: filepath.Join(r.clean, done), Info: fi}, nil
}

// splitRel splits a clean relative path into its components ("." has
// none).
func splitRel(rel string) []string {
	if rel == "." || rel == "" {
		return nil
	}
	return strings.Split(rel, string(filepath.Separator))
}

// errChanged is returned by readVerified when the name no longer names
// the file the resolution found.
var errChanged = errors.New("changed while it was being read")

// readVerified reads the target's file through the root handle, at most
// limit bytes, and checks that the file opened is the one resolved (same
// device and inode): a name swapped for another file or a link between
// resolve and the open is refused with errChanged. O_NONBLOCK keeps a
// FIFO swapped in from blocking the open.
func (t *target) readVerified(limit int64) ([]byte, os.FileInfo, error) {
	f, err := t.handle.OpenFile(t.Rel, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !os.SameFile(fi, t.Info) {
		return nil, nil, errChanged
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("not a regular file")
	}
	if fi.Size() > limit {
		return nil, fi, errTooBig
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, nil, err
	}
	if int64(len(data)) > limit {
		return nil, fi, errTooBig
	}
	return data, fi, nil
}

var errTooBig = errors.New("too big")

// fileError is the client's message for a file system error met while
// resolving or reading asked.
func fileError(asked string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return newError(ErrFileNotFound, "File not found: %s", asked)
	case strings.Contains(err.Error(), "escapes from parent"):
		// os.Root refused a name that a concurrent change turned into a
		// link leading out.
		return newError(ErrNotAllowed, "Path not allowed: %s is a symbolic link leading outside the allowed document roots", asked)
	default:
		return newError(ErrReadFailed, "Failed to read file: %s: %s", asked, cleanErr(err))
	}
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
