package vault

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/vaultgraph/vaultgraph/core"
)

// Writer changes notes of the vault for vaultgraph's tools: the file
// first, atomically (see the package documentation), then the Mirror's
// index and the store in the same call, so a read right after sees the
// change and the watcher's later event for the same content is a no-op.
//
// When the store fails after the file was written, the call still
// succeeds (the vault is the source of truth and has the change); the
// store change is queued and retried like any other, and a warning says
// so. Errors: core.ErrInvalidPath for paths the vault refuses (see
// Mirror.CleanPath), core.ErrExists when a create or rename would replace
// a file, core.ErrNotFound when the note is missing, core.ErrConflict when
// an expected hash does not match, core.ErrInvalidArgument for bad titles
// or tags, and a *core.ProviderError when the file system fails.
//
// Writer implements core.NoteWriter (Create, Update, Delete by ID, with
// file names derived from titles) and offers path-based calls for
// toolsets that address notes by path (CreateFile, WriteFile, DeleteFile,
// Rename, ReadFile). It is safe for concurrent use.
type Writer struct{ m *Mirror }

var _ core.NoteWriter = (*Writer)(nil)

// Writer returns the Mirror's writer. Writes wait for the first Sync to
// finish and fail before it has started.
func (m *Mirror) Writer() *Writer { return &Writer{m: m} }

var errNotLoaded = errors.New("vault: the vault is not loaded yet (Sync has not run)")

// lock takes the Mirror's lock once the vault is loaded.
func (w *Writer) lock() error {
	w.m.mu.Lock()
	if !w.m.ready {
		w.m.mu.Unlock()
		return errNotLoaded
	}
	return nil
}

func (w *Writer) unlock() { w.m.mu.Unlock() }

// Create writes a new note named after its title (SanitizeTitle, ".md")
// in n.Directory, created if missing. The exact title goes to frontmatter
// `title` when the file name does not show it, the tags to `tags`. A note
// already at that path, or at a path differing only by letter case, gives
// core.ErrExists.
func (w *Writer) Create(ctx context.Context, n core.NewNote) (*core.Note, error) {
	title := strings.TrimSpace(n.Title)
	if title == "" {
		return nil, core.InvalidArgument("title must not be empty")
	}
	dir, err := w.m.CleanPath(n.Directory)
	if err != nil {
		return nil, err
	}
	name := SanitizeTitle(title)
	rel, err := w.m.cleanNotePath(path.Join(dir, name+".md"))
	if err != nil {
		return nil, err
	}
	var set []fmField
	if name != title {
		set = append(set, fmField{"title", title})
	}
	if len(n.Tags) > 0 {
		tags, err := cleanTags(n.Tags)
		if err != nil {
			return nil, err
		}
		set = append(set, fmField{"tags", tags})
	}
	data := editFrontmatter([]byte(n.Content), set, nil)
	if err := w.lock(); err != nil {
		return nil, err
	}
	defer w.unlock()
	return w.createLocked(ctx, rel, data)
}

// CreateFile writes a new note at the vault-relative path rel with exactly
// content; core.ErrExists when a note is there (or at a path differing
// only by letter case).
func (w *Writer) CreateFile(ctx context.Context, rel string, content []byte) (*core.Note, error) {
	rel, err := w.m.cleanNotePath(rel)
	if err != nil {
		return nil, err
	}
	if err := w.lock(); err != nil {
		return nil, err
	}
	defer w.unlock()
	return w.createLocked(ctx, rel, content)
}

func (w *Writer) createLocked(ctx context.Context, rel string, data []byte) (*core.Note, error) {
	m := w.m
	if strings.ContainsAny(path.Base(rel), newNameChars) {
		return nil, fmt.Errorf("vault: create %s: %w: a note name may not contain any of %s", rel, core.ErrInvalidPath, newNameChars)
	}
	if len(m.idx.groups[strings.ToLower(rel)]) > 0 {
		return nil, fmt.Errorf("vault: create %s: %w", rel, core.ErrExists)
	}
	abs := m.abs(rel)
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, core.NewProviderError("vault: create folder for "+rel, err)
	}
	if err := m.checkNoSymlink(rel); err != nil { // a folder just created by someone else
		return nil, fmt.Errorf("vault: create %s: %w", rel, err)
	}
	if err := writeAtomic(abs, data, true); err != nil {
		return nil, err
	}
	return w.applyPaths(ctx, rel, []string{rel}, nil)
}

// Update changes the note with this ID: new body (its frontmatter is kept,
// unless the new content starts with a frontmatter block of its own), new
// frontmatter tags, and a new title, which renames the file in its folder
// and rewrites incoming links (see Rename). The report is non-nil when the
// file was renamed. A missing note gives core.ErrNotFound.
func (w *Writer) Update(ctx context.Context, id string, u core.NoteUpdate) (*core.Note, *core.RenameReport, error) {
	var set []fmField
	var remove []string
	var newName string
	if u.Title != nil {
		title := strings.TrimSpace(*u.Title)
		if title == "" {
			return nil, nil, core.InvalidArgument("title must not be empty")
		}
		newName = SanitizeTitle(title)
		if newName != title {
			set = append(set, fmField{"title", title})
		} else {
			remove = append(remove, "title")
		}
	}
	if u.Tags != nil {
		tags, err := cleanTags(*u.Tags)
		if err != nil {
			return nil, nil, err
		}
		remove = append(remove, "tags", "tag")
		if len(tags) > 0 {
			set = append(set, fmField{"tags", tags})
		}
	}
	if err := w.lock(); err != nil {
		return nil, nil, err
	}
	defer w.unlock()
	m := w.m
	e := m.idx.byID[id]
	if e == nil {
		return nil, nil, fmt.Errorf("vault: update %s: %w", id, core.ErrNotFound)
	}
	from := e.path
	to := from
	if u.Title != nil {
		var err error
		if to, err = m.cleanNotePath(path.Join(path.Dir(from), newName+".md")); err != nil {
			return nil, nil, err
		}
		if to != from {
			if err := w.checkFree(from, to); err != nil {
				return nil, nil, err
			}
		}
	}
	raw, err := os.ReadFile(m.abs(from))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("vault: update %s: %w", id, core.ErrNotFound)
	}
	if err != nil {
		return nil, nil, core.NewProviderError("vault: read "+from, err)
	}
	data := raw
	if u.Content != nil {
		data = replaceBody(raw, *u.Content)
	}
	data = editFrontmatter(data, set, remove)
	if string(data) != string(raw) {
		if err := writeAtomic(m.abs(from), data, false); err != nil {
			return nil, nil, err
		}
	}
	if to == from {
		n, err := w.applyPaths(ctx, from, []string{from}, nil)
		return n, nil, err
	}
	report, n, err := w.renameLocked(ctx, from, to)
	if err != nil && m.idx.byPath[to] == nil {
		// Not moved: the new content is in place; keep the index with it.
		_, _ = w.applyPaths(ctx, "", []string{from}, nil)
	}
	return n, report, err
}

// replaceBody returns a note file with its body replaced by content. The
// file's frontmatter block (and BOM) is kept, unless content brings a
// frontmatter block of its own, which then replaces it.
func replaceBody(raw []byte, content string) []byte {
	if _, ok := splitFrontmatter(strings.TrimPrefix(content, utf8BOM)); ok {
		return []byte(content)
	}
	text := string(raw)
	bom := ""
	if strings.HasPrefix(text, utf8BOM) {
		bom, text = utf8BOM, text[len(utf8BOM):]
	}
	if fm, ok := splitFrontmatter(text); ok {
		return []byte(bom + text[:fm.bodyStart] + content)
	}
	return []byte(bom + content)
}

// WriteFile replaces the whole content of the note at the vault-relative
// path rel. When expectedHash is not empty it must equal the file's
// current hash (Note.Hash), else core.ErrConflict: a concurrent-safe
// update. A missing note gives core.ErrNotFound.
func (w *Writer) WriteFile(ctx context.Context, rel string, content []byte, expectedHash string) (*core.Note, error) {
	rel, err := w.m.cleanNotePath(rel)
	if err != nil {
		return nil, err
	}
	if err := w.lock(); err != nil {
		return nil, err
	}
	defer w.unlock()
	raw, err := os.ReadFile(w.m.abs(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("vault: write %s: %w", rel, core.ErrNotFound)
	}
	if err != nil {
		return nil, core.NewProviderError("vault: read "+rel, err)
	}
	if expectedHash != "" && hashOf(raw) != expectedHash {
		return nil, fmt.Errorf("vault: write %s: %w", rel, core.ErrConflict)
	}
	if err := writeAtomic(w.m.abs(rel), content, false); err != nil {
		return nil, err
	}
	return w.applyPaths(ctx, rel, []string{rel}, nil)
}

// ReadFile returns the bytes of the note at the vault-relative path rel
// and their hash (what WriteFile's expectedHash compares with); a missing
// note gives core.ErrNotFound.
func (w *Writer) ReadFile(rel string) ([]byte, string, error) {
	rel, err := w.m.cleanNotePath(rel)
	if err != nil {
		return nil, "", err
	}
	raw, err := os.ReadFile(w.m.abs(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", fmt.Errorf("vault: read %s: %w", rel, core.ErrNotFound)
	}
	if err != nil {
		return nil, "", core.NewProviderError("vault: read "+rel, err)
	}
	return raw, hashOf(raw), nil
}

// Delete removes the note with this ID, file and node; false when there
// is no such note (core.NoteWriter; delete_node answers {deleted: false}).
func (w *Writer) Delete(ctx context.Context, id string) (bool, error) {
	if err := w.lock(); err != nil {
		return false, err
	}
	defer w.unlock()
	e := w.m.idx.byID[id]
	if e == nil {
		return false, nil
	}
	return true, w.deleteLocked(ctx, e.path)
}

// DeleteFile removes the note at the vault-relative path rel; a missing
// note gives core.ErrNotFound.
func (w *Writer) DeleteFile(ctx context.Context, rel string) error {
	rel, err := w.m.cleanNotePath(rel)
	if err != nil {
		return err
	}
	if err := w.lock(); err != nil {
		return err
	}
	defer w.unlock()
	if w.m.idx.byPath[rel] == nil {
		if _, err := os.Lstat(w.m.abs(rel)); err != nil {
			return fmt.Errorf("vault: delete %s: %w", rel, core.ErrNotFound)
		}
	}
	return w.deleteLocked(ctx, rel)
}

func (w *Writer) deleteLocked(ctx context.Context, rel string) error {
	abs := w.m.abs(rel)
	if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return core.NewProviderError("vault: delete "+rel, err)
	}
	syncDir(filepath.Dir(abs))
	_, err := w.applyPaths(ctx, "", []string{rel}, nil)
	return err
}

// applyPaths brings the index and the store up to date with the files at
// paths (read again; gone when missing) plus extra ready-made changes, and
// returns the note now at want (nil for "").
func (w *Writer) applyPaths(ctx context.Context, want string, paths []string, extra []fileChange) (*core.Note, error) {
	m := w.m
	changes := extra
	for _, p := range paths {
		c, err := m.read(p, "")
		switch {
		case errors.Is(err, fs.ErrNotExist):
			changes = append(changes, fileChange{path: p})
		case err != nil:
			return nil, core.NewProviderError("vault: read back "+p, err)
		default:
			changes = append(changes, c)
		}
	}
	built, _ := m.applyLocked(changes)
	if _, err := m.flushLocked(ctx, noProgress{}); err != nil {
		if ctxDone(err) {
			return nil, err
		}
		m.log.Warn("vault: store write failed after a file write; change queued", "path", want, "err", err)
		m.warn("Graph store unavailable: changes are queued and will be applied when it is back")
	}
	if want == "" {
		return nil, nil
	}
	if n := built[want]; n != nil {
		return n, nil
	}
	// Content unchanged: the note is what the index had.
	e := m.idx.byPath[want]
	if e == nil {
		return nil, fmt.Errorf("vault: %s: %w", want, core.ErrNotFound)
	}
	p, _, err := m.load(want)
	if err != nil {
		return nil, core.NewProviderError("vault: read back "+want, err)
	}
	return m.noteOf(e, p), nil
}

// cleanTags prepares tags for frontmatter: "#" and blanks trimmed, inner
// blanks turned into hyphens, empty ones dropped, duplicates (compared
// case-insensitively) dropped. A tag Obsidian would not accept is an
// invalid argument.
func cleanTags(tags []string) ([]string, error) {
	out := []string{}
	seen := map[string]bool{}
	for _, t := range tags {
		t = strings.Join(strings.Fields(cleanTag(t)), "-")
		if t == "" {
			continue
		}
		if !validTag(t) {
			return nil, core.InvalidArgument("tag %q is not valid: use letters, digits, _, - and / (not only digits)", t)
		}
		if k := strings.ToLower(t); !seen[k] {
			seen[k] = true
			out = append(out, t)
		}
	}
	return out, nil
}
