package kb

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ListNotes returns the vault-relative paths of the notes (".md" files)
// under the knowledge base's subfolder, or under filter, a folder
// relative to that subfolder, sorted. Hidden files and folders and
// symbolic links are left out, as the vault leaves them out. A folder
// that does not exist has no notes.
func (s *Service) ListNotes(ctx context.Context, kbName, filter string) (*KnowledgeBase, []string, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	kb, err := s.load(kbName)
	if err != nil {
		return nil, nil, err
	}
	sub, err := cleanRel("subfolder", filter)
	if err != nil {
		return nil, nil, err
	}
	dir := joinRel(kb.Subfolder, sub)
	if err := s.checkNoSymlink("subfolder", dir); err != nil {
		return nil, nil, err
	}
	paths, err := s.walkNotes(dir)
	if err != nil {
		return nil, nil, err
	}
	return kb, paths, nil
}

// walkNotes lists the notes under the clean vault-relative folder dir.
func (s *Service) walkNotes(dir string) ([]string, error) {
	top := s.abs(dir)
	fi, err := os.Lstat(top)
	if errors.Is(err, fs.ErrNotExist) || err == nil && !fi.IsDir() {
		return []string{}, nil
	}
	if err != nil {
		return nil, err
	}
	paths := []string{}
	err = filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == top {
				return err
			}
			s.log.Warn("kb: skipping an unreadable folder while listing notes", "err", err)
			return nil
		}
		if p != top && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && isNoteName(d.Name()) {
			rel, err := filepath.Rel(s.root, p)
			if err != nil {
				return err
			}
			paths = append(paths, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(paths)
	return paths, nil
}
