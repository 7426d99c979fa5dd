package kb

import (
	"context"
	"strconv"
	"strings"
)

// list_notes' page size, in notes: a page of 500 vault-relative paths is
// some 40 KB, where a whole knowledge base over a 6,500-note vault was
// 485 KB in one answer.
const (
	DefaultListLimit = 500
	MaxListLimit     = 5000
)

// NoteList is a page of list_notes: Paths are the notes [Offset,
// NextOffset) of the Total under the folder listed, sorted by path;
// HasMore says whether a call with offset NextOffset gives more.
type NoteList struct {
	KB         *KnowledgeBase
	Paths      []string
	Total      int
	Offset     int
	NextOffset int
	HasMore    bool
	Remaining  int // Total - NextOffset
}

// ListNotes returns a page of the vault-relative paths of the notes
// (".md" files) under the knowledge base's subfolder, or under filter, a
// folder relative to that subfolder, sorted: limit paths (DefaultListLimit
// when <= 0, at most MaxListLimit) from offset. Hidden files and folders
// and symbolic links are left out, as the vault leaves them out. The
// knowledge base's own folder, when it does not exist yet, has no notes;
// a filter naming a folder that does not exist is invalid_note_path saying
// what to pass instead (the path relative to the knowledge base when it
// was written vault-relative, else the folders there).
func (s *Service) ListNotes(ctx context.Context, kbName, filter string, offset, limit int) (*NoteList, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	kb, err := s.load(kbName)
	if err != nil {
		return nil, err
	}
	sub, err := cleanRel("subfolder", filter)
	if err != nil {
		return nil, err
	}
	dir, err := s.folder("subfolder", filter, joinRel(kb.Subfolder, sub), false)
	if err != nil {
		return nil, err
	}
	if sub != "" && kb.Subfolder != "" && within(sub, kb.Subfolder) && !s.isDir(dir) {
		rest := strings.Join(segments(sub)[len(segments(kb.Subfolder)):], "/")
		if rest == "" {
			return nil, newError(CodeInvalidNotePath, "subfolder %q is the knowledge base's own subfolder; subfolder is relative to it, so leave it out to list the whole knowledge base", filter)
		}
		return nil, newError(CodeInvalidNotePath, "subfolder %q does not exist inside the knowledge base's subfolder %q; subfolder is relative to it (like note_path): pass %q", filter, kb.Subfolder, rest)
	}
	if sub != "" && !s.isDir(dir) {
		return nil, newError(CodeInvalidNotePath, "subfolder %q does not exist in knowledge base %q (%s); subfolder is relative to the knowledge base's folder: pass one of its folders, or leave subfolder out to list every note", filter, kb.Name, s.foldersHint(kb.Subfolder))
	}
	paths, err := s.walkNotes(dir)
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = DefaultListLimit
	}
	limit = min(limit, MaxListLimit)
	start := min(max(offset, 0), len(paths))
	end := min(start+limit, len(paths))
	return &NoteList{KB: kb, Paths: paths[start:end], Total: len(paths), Offset: start, NextOffset: end,
		HasMore: end < len(paths), Remaining: len(paths) - end}, nil
}

// foldersHint names the first folders under the vault-relative folder
// dir, for an error that says which subfolder to pass.
func (s *Service) foldersHint(dir string) string {
	entries, err := s.fs.ReadDir(dir)
	if err != nil {
		return "it has no folders"
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, strconv.Quote(e.Name()))
		}
	}
	switch {
	case len(names) == 0:
		return "it has no folders"
	case len(names) > 10:
		return "its folders include " + strings.Join(names[:10], ", ")
	}
	return "its folders: " + strings.Join(names, ", ")
}

// isDir reports whether the vault-relative path is a folder (not a link).
func (s *Service) isDir(rel string) bool {
	info, err := s.fs.Stat(rel)
	return err == nil && info.IsDir()
}
