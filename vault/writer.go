package vault

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vaultgraph/vaultgraph/confine"
	"github.com/vaultgraph/vaultgraph/core"
)

// Writer changes notes of the vault for vaultgraph's tools: the file
// first, atomically and confined to the vault (see package confine), then
// the Mirror's index and the store in the same call, so a read right
// after sees the change and the watcher's later event for the same
// content is a no-op.
//
// Every read-modify-write (a new title or tags, a rewritten link) writes
// only if the file is still what it read, and otherwise reads it again and
// applies the change again, so an edit made meanwhile in an editor or by
// another process is never lost. Every write that adds, moves or deletes a
// note first rewrites the links that would otherwise change meaning (see
// planRewrites); a move is journaled so that a crash cannot leave links
// half rewritten (see journal.go).
//
// When the store fails after the file was written, the call still
// succeeds (the vault is the source of truth and has the change); the
// store change is queued and retried like any other, and a warning says
// so. Errors: core.ErrInvalidPath for paths the vault refuses (see
// Mirror.CleanPath and core.CheckNewName), core.ErrExists when a create or
// rename would replace a file, core.ErrNotFound when the note is missing,
// core.ErrConflict when an expected hash does not match or the note keeps
// changing, core.ErrInvalidArgument for bad titles or tags, and a
// *core.ProviderError when the file system fails.
//
// Writer implements core.NoteWriter (Create, Update, Delete by ID, with
// file names derived from titles) and offers path-based calls for
// toolsets that address notes by path (CreateFile, WriteFile, DeleteFile,
// Rename, ReadFile). It is safe for concurrent use.
type Writer struct {
	m     *Mirror
	check core.NoteCheck // run by Create and Update before they write; nil: none
}

var _ core.NoteWriter = (*Writer)(nil)

// Writer returns the Mirror's writer. Writes wait for the first Sync to
// finish (at most Config.FirstSyncWait when it is set) and fail before it
// has started.
func (m *Mirror) Writer() *Writer { return &Writer{m: m} }

// WithCheck returns a writer whose core.NoteWriter calls (Create, Update)
// run check on the note's final path and bytes before they write
// anything, and write nothing when it fails; the path-based calls
// (CreateFile, WriteFile, Rename...) do not run it: their callers (the
// knowledge base service) check what they write themselves. The check
// runs under the Mirror's lock and must not call the Writer.
func (w *Writer) WithCheck(check core.NoteCheck) *Writer { return &Writer{m: w.m, check: check} }

var errNotLoaded = errors.New("vault: the vault is not loaded yet (Sync has not run)")

// errStillSyncing is the cause of a write refused because the first Sync
// did not end within Config.FirstSyncWait.
var errStillSyncing = errors.New("vault: the vault's first sync is still running; nothing was written, retry in a few seconds")

// lock takes the Mirror's lock once the vault is loaded, and the vault's
// write lock (.vaultgraph/write.lock), which every vaultgraph process
// writing this vault takes: two servers of one vault (replicas on one
// Neo4j) never plan a rename on each other's half-done writes. A Mirror
// that is not watching the vault (a replica started with --watch=false,
// a call) first brings its index up to date with the disk, so it can
// write any note, whoever created it.
//
// With Config.FirstSyncWait it waits that long at most for the first
// Sync (which holds the Mirror's lock throughout), reporting progress
// every second (core.ReportProgress), and then fails with a provider
// error the caller may retry: a tool call is answered during a long first
// sync instead of hanging until it ends.
func (w *Writer) lock(ctx context.Context) error {
	if err := w.m.waitFirstSync(ctx); err != nil {
		return err
	}
	w.m.mu.Lock()
	if !w.m.ready {
		w.m.mu.Unlock()
		return errNotLoaded
	}
	release, err := w.m.fs.Lock(writeLockFile)
	if err != nil {
		w.m.mu.Unlock()
		return fileError("lock", writeLockFile, err)
	}
	w.m.unlockWrites = release
	if w.m.watching.Load() == 0 {
		w.m.refreshLocked(ctx)
	}
	return nil
}

func (w *Writer) unlock() {
	if w.m.unlockWrites != nil {
		w.m.unlockWrites()
		w.m.unlockWrites = nil
	}
	w.m.mu.Unlock()
}

// firstSyncTick is the time between two progress reports of a write
// waiting for the first Sync.
const firstSyncTick = time.Second

// waitFirstSync waits for the first Sync to end when Config.FirstSyncWait
// is set, at most that long (see lock).
func (m *Mirror) waitFirstSync(ctx context.Context) error {
	d := m.cfg.FirstSyncWait
	if d <= 0 {
		return nil
	}
	select {
	case <-m.synced:
		return nil
	default:
	}
	start := time.Now()
	limit := time.NewTimer(d)
	defer limit.Stop()
	tick := time.NewTicker(firstSyncTick)
	defer tick.Stop()
	for n := 1; ; n++ {
		core.ReportProgress(ctx, n, 0, fmt.Sprintf("waiting for the vault's first sync before writing (%s so far)", time.Since(start).Round(time.Second)))
		select {
		case <-m.synced:
			return nil
		case <-ctx.Done():
			return fmt.Errorf("vault: waiting for the first sync: %w", ctx.Err())
		case <-limit.C:
			return core.NewProviderError("write note", errStillSyncing)
		case <-tick.C:
		}
	}
}

// writeLockFile is the vault's cross-process write lock.
const writeLockFile = ".vaultgraph/write.lock"

// refreshLocked brings the index up to date with the disk: a rescan that
// reads only files whose size or mtime changed (see scanChangesLocked).
// m.mu must be held.
func (m *Mirror) refreshLocked(ctx context.Context) {
	files, err := m.walk("", nil)
	if err != nil {
		m.log.Warn("vault: cannot rescan the vault before a write", "err", err)
		return
	}
	if changes := m.scanChangesLocked("", files); len(changes) > 0 {
		// What the rescan finds was changed outside, not by the caller.
		m.applyLocked(core.WithActor(ctx, core.ActorOutside), changes)
	}
}

// Create writes a new note named after its title (TitleFileName, or
// SanitizeTitle with Config.FileNames "slug"; ".md") in n.Directory,
// created if missing, or where the vault's Obsidian settings put new
// notes when n.Directory is empty (newNoteDir); a folder that exists in
// another letter case is used as it is. The exact title goes to
// frontmatter `title` when the file name does not show it, the tags to
// `tags`. A note with the same title at that path, or at a path that
// looks the same (letter case, Unicode form), gives core.ErrExists; a
// different title whose file name is taken gets a distinct name when its
// name was cut to the longest file name, else an error saying the file
// name is taken. It implements core.NoteWriter; CreateReporting also
// says which other notes the create rewrote.
func (w *Writer) Create(ctx context.Context, n core.NewNote) (*core.Note, error) {
	note, _, err := w.CreateReporting(ctx, n)
	return note, err
}

// CreateReporting is Create that also returns the other notes it
// rewrote so that no link changes meaning (links the new note would take
// over get a longer form; see createLocked), sorted by ID, with how many
// of their links changed each (core.CreateReporter).
func (w *Writer) CreateReporting(ctx context.Context, n core.NewNote) (*core.Note, []core.Relinked, error) {
	title := strings.TrimSpace(n.Title)
	if title == "" {
		return nil, nil, core.InvalidArgument("title must not be empty")
	}
	if !utf8.ValidString(title) || strings.ContainsFunc(title, func(r rune) bool { return r == 0 || isBidi(r) }) {
		return nil, nil, core.InvalidArgument("title %q holds a NUL or an invisible text-direction character; remove it", title)
	}
	dir, err := w.m.cleanNewDir(n.Directory)
	if err != nil {
		return nil, nil, err
	}
	name, maxName := w.m.fileNameFor(title)
	var set []fmField
	if name != title {
		set = append(set, fmField{"title", title})
	}
	if len(n.Tags) > 0 {
		tags, err := cleanTags(n.Tags)
		if err != nil {
			return nil, nil, err
		}
		set = append(set, fmField{"tags", tags})
	}
	data := editFrontmatter([]byte(n.Content), set, nil)
	if err := w.lock(ctx); err != nil {
		return nil, nil, err
	}
	defer w.unlock()
	if n.Directory == "" {
		dir = w.m.newNoteDir()
	}
	if dir, err = w.m.existingDirCase(dir); err != nil {
		return nil, nil, err
	}
	rel, err := w.m.cleanNotePath(path.Join(dir, name+".md"))
	if err != nil {
		return nil, nil, err
	}
	if taken := w.m.takenBy(rel); taken != nil {
		if t := w.m.titleOf(taken); t == title {
			return nil, nil, fmt.Errorf("vault: create %s: %w", rel, core.ErrExists)
		} else if len(name) < maxName-8 {
			return nil, nil, fmt.Errorf("vault: create: %w: the file name %q is taken by the note %q; choose a title that gives another file name", core.ErrExists, taken.path, t)
		}
		// Two long titles cut to one name: tell them apart by the title.
		sum := sha256.Sum256([]byte(title))
		name = trimName(strings.TrimRight(truncUTF8(name, maxName-8), "-. ")) + "-" + hex.EncodeToString(sum[:3])
		if rel, err = w.m.cleanNotePath(path.Join(dir, name+".md")); err != nil {
			return nil, nil, err
		}
		if w.m.takenBy(rel) != nil {
			return nil, nil, fmt.Errorf("vault: create %s: %w", rel, core.ErrExists)
		}
	}
	if w.check != nil {
		if err := w.check(ctx, rel, data); err != nil {
			return nil, nil, err
		}
	}
	return w.createLocked(ctx, rel, data)
}

// truncUTF8 cuts s to at most n bytes on a character boundary.
func truncUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// CreateFile writes a new note at the vault-relative path rel with exactly
// content; core.ErrExists when a note is there (or at a path that looks
// the same: letter case, Unicode form).
func (w *Writer) CreateFile(ctx context.Context, rel string, content []byte) (*core.Note, error) {
	note, _, err := w.CreateFileReporting(ctx, rel, content)
	return note, err
}

// CreateFileReporting is CreateFile that also returns the other notes it
// rewrote so that the links the new note would take over keep their
// target (createLocked), sorted by ID.
func (w *Writer) CreateFileReporting(ctx context.Context, rel string, content []byte) (*core.Note, []core.Relinked, error) {
	rel, err := w.m.cleanNewNotePath(rel)
	if err != nil {
		return nil, nil, err
	}
	if err := w.lock(ctx); err != nil {
		return nil, nil, err
	}
	defer w.unlock()
	dir, err := w.m.existingDirCase(dirOf(rel))
	if err != nil {
		return nil, nil, err
	}
	rel = joinPath(dir, path.Base(rel))
	if w.m.takenBy(rel) != nil {
		return nil, nil, fmt.Errorf("vault: create %s: %w", rel, core.ErrExists)
	}
	return w.createLocked(ctx, rel, content)
}

// createLocked keeps the meaning of the links the new note would take
// over, then writes it. In that order a crash in between leaves links
// that still resolve as before (only written longer) and no new note. It
// returns the new note and the notes rewritten, sorted by ID.
func (w *Writer) createLocked(ctx context.Context, rel string, data []byte) (*core.Note, []core.Relinked, error) {
	m := w.m
	if _, err := m.fs.Stat(rel); err == nil {
		return nil, nil, fmt.Errorf("vault: create %s: %w", rel, core.ErrExists)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fileError("create", rel, err)
	}
	plans := m.planRewrites(ctx, setChange{add: []string{rel}})
	rewritten, counts, _, err := m.rewriteFilesCounted(plans, confine.WriteOptions{})
	if err != nil {
		return nil, nil, err
	}
	if err := m.createFile(rel, data); err != nil {
		_, _ = w.applyPaths(ctx, "", rewritten, nil)
		return nil, nil, err
	}
	note, err := w.applyPaths(ctx, rel, append([]string{rel}, rewritten...), nil)
	if err != nil {
		return nil, nil, err
	}
	return note, m.relinked(rewritten, counts, rel), nil
}

// relinked lists the notes at paths (written with counts[i] links
// changed each), other than self, by ID. m.mu must be held.
func (m *Mirror) relinked(paths []string, counts []int, self string) []core.Relinked {
	out := []core.Relinked{}
	for i, p := range paths {
		if p == self {
			continue
		}
		if e := m.idx.byPath[p]; e != nil {
			out = append(out, core.Relinked{ID: e.id, Path: e.path, Links: counts[i]})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// takenBy returns the note at rel or at a path that looks the same.
func (m *Mirror) takenBy(rel string) *entry {
	if e := m.idx.byPath[rel]; e != nil {
		return e
	}
	for _, e := range m.idx.group(groupKey(rel)) {
		return e
	}
	return nil
}

// titleOf returns a note's title as the graph shows it.
func (m *Mirror) titleOf(e *entry) string {
	if p, _, err := m.load(e.path); err == nil {
		return p.note.Title
	}
	return titleFromPath(e.path)
}

// Update changes the note with this ID: new body (its frontmatter is kept,
// unless the new content starts with a frontmatter block of its own), new
// frontmatter tags, and a new title, which renames the file in its folder
// and rewrites incoming links (see Rename). A title equal to the note's
// current title, or to its file name in any letter case, renames nothing
// (clients often send every field back). The report is non-nil when the
// file was renamed. A missing note gives core.ErrNotFound; a file whose
// hash is not u.ExpectedHash (when set) gives core.ErrConflict, and the
// store is brought up to date with the file as it is.
func (w *Writer) Update(ctx context.Context, id string, u core.NoteUpdate) (*core.Note, *core.RenameReport, error) {
	var title string
	if u.Title != nil {
		if title = strings.TrimSpace(*u.Title); title == "" {
			return nil, nil, core.InvalidArgument("title must not be empty")
		}
		if !utf8.ValidString(title) || strings.ContainsFunc(title, func(r rune) bool { return r == 0 || isBidi(r) }) {
			return nil, nil, core.InvalidArgument("title %q holds a NUL or an invisible text-direction character; remove it", title)
		}
	}
	var tags []string
	if u.Tags != nil {
		var err error
		if tags, err = cleanTags(*u.Tags); err != nil {
			return nil, nil, err
		}
	}
	if err := w.lock(ctx); err != nil {
		return nil, nil, err
	}
	defer w.unlock()
	m := w.m
	e := m.idx.byID[id]
	if e == nil {
		return nil, nil, fmt.Errorf("vault: update %s: %w", id, core.ErrNotFound)
	}
	if err := onlyNotes(e, "changed"); err != nil {
		return nil, nil, err
	}
	from, to := e.path, e.path
	var set []fmField
	var remove []string
	if u.Title != nil {
		stem := titleFromPath(from)
		switch {
		case title == m.titleOf(e):
			// An echo of the current title: nothing to do.
		case strings.EqualFold(title, stem):
			remove = append(remove, "title") // the file name shows it (up to case)
			if title != stem {
				set = append(set, fmField{"title", title})
			}
		default:
			name, _ := m.fileNameFor(title)
			if name != title {
				set = append(set, fmField{"title", title})
			} else {
				remove = append(remove, "title")
			}
			var err error
			if to, err = m.cleanNewNotePath(path.Join(dirOf(from), name+".md")); err != nil {
				return nil, nil, err
			}
			if to != from {
				if err := w.checkFree(from, to); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	if u.Tags != nil {
		remove = append(remove, "tags", "tag")
		if len(tags) > 0 {
			set = append(set, fmField{"tags", tags})
		}
	}
	conflict := false
	_, _, err := m.modifyFile(from, confine.WriteOptions{}, func(raw []byte) ([]byte, error) {
		if u.ExpectedHash != "" && hashOf(raw) != u.ExpectedHash {
			conflict = true
			return nil, fmt.Errorf("vault: update %s: the file changed since it was read: %w", from, core.ErrConflict)
		}
		data := raw
		if u.Content != nil {
			data = replaceBody(raw, *u.Content)
		}
		data = editFrontmatter(data, set, remove)
		if u.Tags != nil && u.Content == nil {
			// The tags replace the note's: the old body's other inline
			// tags stop being tags (new content keeps its own).
			data = unTagBody(from, data, tags)
		}
		if w.check != nil {
			// On the bytes about to be written, where they will end up.
			if err := w.check(ctx, to, data); err != nil {
				return nil, err
			}
		}
		return data, nil
	})
	if conflict {
		// The store may not have seen the outside edit yet (the watcher's
		// debounce): bring it up to date, so that the caller, told of the
		// conflict, reads the note as it is now.
		_, _ = w.applyPaths(ctx, "", []string{from}, nil)
	}
	if err != nil {
		return nil, nil, err
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
// current hash (Note.Hash), else core.ErrConflict; the check and the write
// are one step for every other process (confine.Swap). A missing note
// gives core.ErrNotFound.
func (w *Writer) WriteFile(ctx context.Context, rel string, content []byte, expectedHash string) (*core.Note, error) {
	rel, err := w.m.cleanNotePath(rel)
	if err != nil {
		return nil, err
	}
	if err := w.lock(ctx); err != nil {
		return nil, err
	}
	defer w.unlock()
	if rel, err = w.m.existingNoteCase(rel); err != nil {
		return nil, err
	}
	_, _, err = w.m.modifyFile(rel, confine.WriteOptions{}, func(raw []byte) ([]byte, error) {
		if expectedHash != "" && hashOf(raw) != expectedHash {
			return nil, fmt.Errorf("vault: write %s: %w", rel, core.ErrConflict)
		}
		return content, nil
	})
	if err != nil {
		return nil, err
	}
	return w.applyPaths(ctx, rel, []string{rel}, nil)
}

// ReadFile returns the bytes of the note at the vault-relative path rel
// and their hash (what WriteFile's expectedHash compares with), read
// through one confined handle; a missing note gives core.ErrNotFound.
// rel may be in any letter case when one note matches it that way.
func (w *Writer) ReadFile(rel string) ([]byte, string, error) {
	rel, err := w.m.cleanNotePath(rel)
	if err != nil {
		return nil, "", err
	}
	raw, _, err := w.m.readFile(rel)
	if errors.Is(err, fs.ErrNotExist) {
		w.m.mu.Lock()
		alt, aerr := w.m.existingNoteCase(rel)
		w.m.mu.Unlock()
		if aerr == nil && alt != rel {
			raw, _, err = w.m.readFile(alt)
		}
	}
	if err != nil {
		return nil, "", fileError("read", rel, err)
	}
	return raw, hashOf(raw), nil
}

// NotePath returns the path, as it is on disk, of the note the
// vault-relative path rel names: rel (cleaned) when a note is there, else
// the one note whose path matches it in letter case and Unicode form (the
// rule of WriteFile, DeleteFile, Rename and ReadFile), else rel. Several
// such notes are a *core.InvalidPathError naming them.
func (w *Writer) NotePath(rel string) (string, error) {
	rel, err := w.m.cleanNotePath(rel)
	if err != nil {
		return "", err
	}
	// A lookup only: the vault's lock, not the write lock other
	// processes take.
	w.m.mu.Lock()
	defer w.m.mu.Unlock()
	if !w.m.ready {
		return "", errNotLoaded
	}
	return w.m.existingNoteCase(rel)
}

// Delete removes the note with this ID, file and node, and the folders
// that leaves empty (removeEmptyFolders); false when there is no such
// note (core.NoteWriter; delete_node answers {deleted: false}).
func (w *Writer) Delete(ctx context.Context, id string) (bool, error) {
	if err := w.lock(ctx); err != nil {
		return false, err
	}
	defer w.unlock()
	e := w.m.idx.byID[id]
	if e == nil {
		return false, nil
	}
	if err := onlyNotes(e, "deleted"); err != nil {
		return false, err
	}
	if err := w.deleteLocked(ctx, e.path); err != nil {
		return true, err
	}
	w.m.removeEmptyFolders(dirOf(e.path))
	return true, nil
}

// removeEmptyFolders removes dir when it is empty, then its parent when
// that is empty, and so on up to (not including) the vault root, stopping
// at the first folder that holds anything (a hidden file too) and at the
// folder the vault's Obsidian settings put new notes in (newNoteDir): a
// delete_node leaves no folder it emptied behind (issue 45). The removal
// is the system's "remove an empty folder", so a file written meanwhile
// keeps its folder. A failure (most often: not empty) ends it quietly:
// the note is deleted either way. m.mu must be held.
func (m *Mirror) removeEmptyFolders(dir string) {
	keep := m.newNoteDir()
	for dir != "" && dir != keep {
		if err := m.fs.RemoveDir(dir); err != nil {
			m.log.Debug("vault: the folder stays", "folder", dir, "err", err)
			return
		}
		dir = dirOf(dir)
	}
}

// DeleteFile removes the note at the vault-relative path rel; a missing
// note gives core.ErrNotFound.
func (w *Writer) DeleteFile(ctx context.Context, rel string) error {
	rel, err := w.m.cleanNotePath(rel)
	if err != nil {
		return err
	}
	if err := w.lock(ctx); err != nil {
		return err
	}
	defer w.unlock()
	if rel, err = w.m.existingNoteCase(rel); err != nil {
		return err
	}
	if w.m.idx.byPath[rel] == nil {
		if _, err := w.m.fs.Stat(rel); err != nil {
			return fmt.Errorf("vault: delete %s: %w", rel, core.ErrNotFound)
		}
	}
	return w.deleteLocked(ctx, rel)
}

// deleteLocked first gives the links to the note a form that stays
// unresolved once it is gone (instead of falling to another note with the
// same name), then deletes it.
func (w *Writer) deleteLocked(ctx context.Context, rel string) error {
	m := w.m
	plans := m.planRewrites(ctx, setChange{remove: []string{rel}})
	rewritten, _, err := m.rewriteFiles(plans, confine.WriteOptions{})
	if err != nil {
		return err
	}
	if err := m.deleteNoteFile(rel); err != nil && !errors.Is(err, core.ErrNotFound) {
		_, _ = w.applyPaths(ctx, "", rewritten, nil)
		return err
	}
	_, err = w.applyPaths(ctx, "", append([]string{rel}, rewritten...), nil)
	return err
}

// applyPaths brings the index and the store up to date with the files at
// paths (read again; gone when missing) plus extra ready-made changes, and
// returns the note now at want (nil for "").
func (w *Writer) applyPaths(ctx context.Context, want string, paths []string, extra []fileChange) (*core.Note, error) {
	m := w.m
	if _, ok := core.ActorFrom(ctx); !ok {
		// A write of vaultgraph's own whose caller is not named (a
		// command run by the machine's user): the change log says local.
		ctx = core.WithActor(ctx, core.ActorLocal)
	}
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
	built, _ := m.applyLocked(ctx, changes)
	if _, err := m.flushLocked(ctx, noProgress{}); err != nil {
		if ctxDone(err) {
			return nil, err
		}
		m.log.Warn("vault: store write failed after a file write; change queued", "path", want, "err", err)
		core.AddCallWarnings(ctx, core.StoreQueuedWarning)
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

func isBidi(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// EditNote changes the note a client's ID names (any form
// core.IDCandidates accepts: letter case, Unicode form, with or without
// ".md") by edit, a function of the note's vault-relative path and its
// file's bytes, through the compare-and-swap read-modify-write every write
// uses (modifyFile): when an editor changed the note between the read and the write, the file is
// read again and edit applied again to what is there now, so nothing of
// the outside edit is lost. edit may refuse (its error is returned as it
// is and nothing is written) or change nothing. It returns the bytes edit
// last started from, the bytes now in the file (equal when nothing was
// written) and the note as stored. A missing note gives core.ErrNotFound.
func (w *Writer) EditNote(ctx context.Context, id string, edit func(path string, raw []byte) ([]byte, error)) (note *core.Note, before, after []byte, err error) {
	if err := w.lock(ctx); err != nil {
		return nil, nil, nil, err
	}
	defer w.unlock()
	m := w.m
	var e *entry
	for _, c := range core.IDCandidates(id) {
		if e = m.idx.byID[c]; e == nil {
			e = m.idx.byPath[c]
		}
		if e != nil {
			break
		}
	}
	if e == nil {
		return nil, nil, nil, fmt.Errorf("vault: edit %s: %w", id, core.ErrNotFound)
	}
	if err := onlyNotes(e, "edited"); err != nil {
		return nil, nil, nil, err
	}
	rel := e.path
	before, after, err = m.modifyFile(rel, confine.WriteOptions{}, func(raw []byte) ([]byte, error) { return edit(rel, raw) })
	if err != nil {
		return nil, nil, nil, err
	}
	note, err = w.applyPaths(ctx, rel, []string{rel}, nil)
	return note, before, after, err
}

// readLock holds the Mirror's lock for a read of its index (not the
// vault's write lock): LocalID and LocalTitles.
func (w *Writer) readLock(ctx context.Context) error {
	if err := w.m.waitFirstSync(ctx); err != nil {
		return err
	}
	w.m.mu.Lock()
	if !w.m.ready {
		w.m.mu.Unlock()
		return errNotLoaded
	}
	return nil
}

// LocalID returns the first of candidates that is the ID of a note in the
// index, or "" (core.LocalResolver: a write's ID when the store fails).
func (w *Writer) LocalID(ctx context.Context, candidates []string) (string, error) {
	if err := w.readLock(ctx); err != nil {
		return "", err
	}
	defer w.m.mu.Unlock()
	for _, c := range candidates {
		if w.m.idx.byID[c] != nil {
			return c, nil
		}
	}
	return "", nil
}

// LocalTitles returns the titles of the notes with these IDs, read from
// their files (a title may come from frontmatter, which the index does
// not keep); IDs of no note, or of a file that cannot be read now, are
// left out (core.LocalResolver: a write's answer when the store fails).
func (w *Writer) LocalTitles(ctx context.Context, ids []string) (map[string]string, error) {
	if err := w.readLock(ctx); err != nil {
		return nil, err
	}
	defer w.m.mu.Unlock()
	out := make(map[string]string, len(ids))
	for _, id := range ids {
		e := w.m.idx.byID[id]
		if e == nil {
			continue
		}
		if _, ok := out[id]; ok {
			continue
		}
		if p, _, err := w.m.load(e.path); err == nil && p != nil {
			out[id] = p.note.Title
		}
	}
	return out, nil
}
