package vault

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/vaultgraph/vaultgraph/core"
)

// maxSegment is the longest file or folder name accepted, in bytes (the
// limit of common file systems).
const maxSegment = 255

// CleanPath checks a vault-relative path given by a client and returns it
// cleaned ("./a//b.md" → "a/b.md"; "" and "." are the vault root). It
// refuses, with an error wrapping core.ErrInvalidPath: NUL and other
// control characters, backslashes (never a separator, and a trap on
// Windows), absolute paths, any ".." segment, names starting with "."
// (.obsidian, .git and the like are not notes), names over 255 bytes,
// paths the vault's ignore globs exclude, and any existing component that
// is a symbolic link (whether it leads outside the vault or not: the sync
// does not follow links either, so a note written through one would be
// invisible). The path need not exist.
func (m *Mirror) CleanPath(p string) (string, error) {
	clean, err := cleanRelPath(p)
	if err != nil {
		return "", err
	}
	if clean != "" && m.ignore.skip(clean) {
		return "", fmt.Errorf("vault: path %q: %w: excluded from the vault", p, core.ErrInvalidPath)
	}
	if err := m.checkNoSymlink(clean); err != nil {
		return "", fmt.Errorf("vault: path %q: %w", p, err)
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

// checkNoSymlink refuses a clean vault-relative path any existing component
// of which is a symbolic link.
func (m *Mirror) checkNoSymlink(clean string) error {
	if clean == "" {
		return nil
	}
	cur := m.cfg.Root
	for _, seg := range strings.Split(clean, "/") {
		cur = filepath.Join(cur, seg)
		fi, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return core.NewProviderError("vault: stat "+seg, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%w: %s is a symbolic link", core.ErrInvalidPath, seg)
		}
	}
	return nil
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
