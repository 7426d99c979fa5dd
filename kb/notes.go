package kb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/vaultgraph/vaultgraph/core"
	"golang.org/x/text/unicode/norm"
)

// writeAttempts bounds how often a write that found the note changed
// under it (by a writer outside the Service) reads it again and retries.
const writeAttempts = 3

// NoteResult is what create_note and validate_note answer.
type NoteResult struct {
	KB         *KnowledgeBase
	Note       NoteVersion
	Validation Validation
	// Relinked are the other notes the create rewrote so that the bare
	// links the new note would take over keep their target, sorted by ID
	// (create_note; none when the Files cannot say).
	Relinked []core.Relinked
}

// NoteChange is what update_note and append_note answer.
type NoteChange struct {
	KB         *KnowledgeBase
	Original   NoteVersion
	Updated    NoteVersion
	Validation Validation
}

// NoteMove is what move_note answers: the vault-relative paths and what
// keeping links to the note whole rewrote in other notes.
type NoteMove struct {
	KB           *KnowledgeBase
	From, To     string
	Validation   Validation
	FilesChanged int
	LinksChanged int
	Relinked     []core.Relinked // the other notes rewritten, sorted by ID
}

// NotePage is what read_note answers.
type NotePage struct {
	KB      *KnowledgeBase
	Path    string
	Version string
	Page
}

// target resolves a note path of a knowledge base to a vault-relative
// path as it is on disk: note_path is relative to the knowledge base's
// subfolder, must name a ".md" file and may not leave the subfolder (see
// cleanRel). Its folders are taken as they exist on disk, in any letter
// case or Unicode form (see folder); a symbolic link or a file in the way
// is invalid_note_path naming it.
//
// For a note to create (create), names that do not exist yet must pass
// core.CheckNewName and are taken in NFC. For an existing note, the note
// is the one the vault finds for the path (Files.NotePath: the exact path
// first, else the one note matching it in letter case and Unicode form,
// as the graph's lowercased IDs do; several are invalid_note_path naming
// them).
func (s *Service) target(kb *KnowledgeBase, arg, notePath string, create bool) (string, error) {
	clean, err := cleanRel(arg, notePath)
	if err != nil {
		return "", err
	}
	if clean == "" {
		return "", newError(CodeInvalidNotePath, "%s is empty; give the note's path relative to the knowledge base's subfolder, e.g. \"topic/note.md\"", arg)
	}
	if !isNoteName(clean) {
		return "", newError(CodeInvalidNotePath, "%s %q must name a markdown file ending in .md", arg, notePath)
	}
	rel := joinRel(kb.Subfolder, clean)
	dir, err := s.folder(arg, notePath, dirOf(rel), create)
	if err != nil {
		return "", err
	}
	rel = joinRel(dir, path.Base(rel))
	if create {
		name := norm.NFC.String(path.Base(rel))
		if err := core.CheckNewName(name); err != nil {
			return "", newError(CodeInvalidNotePath, "%s %q is not allowed: %s", arg, notePath, nameWhy(err))
		}
		rel = joinRel(dir, name)
	} else if rel, err = s.files.NotePath(rel); err != nil {
		return "", s.pathRefused(arg, notePath, rel, err)
	}
	if info, err := s.fs.Stat(rel); err == nil && info.Mode&fs.ModeSymlink != 0 {
		return "", newError(CodeInvalidNotePath, "%s %q is not allowed: %q is a symbolic link, which vaultgraph does not follow", arg, notePath, rel)
	}
	return rel, nil
}

// pathRefused maps a Files refusal of a path to invalid_note_path with
// the vault's reason when it gives one; other failures are fileError's.
func (s *Service) pathRefused(arg, given, rel string, err error) error {
	var ipe *core.InvalidPathError
	if errors.As(err, &ipe) {
		return newError(CodeInvalidNotePath, "%s %q is not allowed: %s", arg, given, ipe.Why)
	}
	return fileError(err, rel)
}

// dirOf is the folder of a clean vault-relative path ("" at the root).
func dirOf(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return ""
}

// resolve loads a knowledge base and resolves the path of an existing
// note in it.
func (s *Service) resolve(kbName, arg, notePath string) (*KnowledgeBase, string, error) {
	kb, err := s.load(kbName)
	if err != nil {
		return nil, "", err
	}
	rel, err := s.target(kb, arg, notePath, false)
	if err != nil {
		return nil, "", err
	}
	return kb, rel, nil
}

// validate checks content, to be stored at the vault-relative path rel,
// against the folder constraint that applies there: the constraint of the
// deepest folder containing the note (several files declaring that same
// folder must all pass). No constraint means the note passes. A
// constraint whose rules cannot be used fails the call with
// schema_validation_failed rather than letting notes through unchecked.
func (s *Service) validate(ctx context.Context, kb *KnowledgeBase, rel, content string) (Validation, *ConstraintRef, error) {
	all, err := s.constraints(ctx, kb.Name)
	if err != nil {
		return Validation{}, nil, err
	}
	dir := path.Dir(rel)
	if dir == "." {
		dir = ""
	}
	depth := -1
	var applicable []*constraintFile
	for _, c := range all {
		if !within(dir, c.Subfolder) || !within(c.Subfolder, kb.Subfolder) {
			continue
		}
		switch d := len(segments(c.Subfolder)); {
		case d > depth:
			depth, applicable = d, []*constraintFile{c}
		case d == depth:
			applicable = append(applicable, c)
		}
	}
	if len(applicable) == 0 {
		return passed(), nil, nil
	}
	ref := &ConstraintRef{KBName: kb.Name, Subfolder: applicable[0].Subfolder}
	v := passed()
	for _, c := range applicable {
		if c.err != nil {
			return Validation{}, ref, newError(CodeSchemaValidationFailed,
				"the folder constraint for %q (%s) cannot be used: %v; replace it with add_knowledge_base_folder_constraint",
				c.Subfolder, kbPath(kb.Name, constraintsDir, c.file), c.err)
		}
		v.Issues = append(v.Issues, c.compiled.check(path.Base(rel), content)...)
	}
	v.Passed = len(v.Issues) == 0
	return v, ref, nil
}

// violation is folder_constraint_violation for a failed validation.
func violation(v Validation, ref *ConstraintRef) *Error {
	return &Error{Code: CodeFolderConstraintViolation, Message: "Note does not satisfy folder constraint requirements", Constraint: ref, Issues: v.Issues}
}

// CreateNote writes a new note after machine validation; a note that
// fails it is not written. An existing note is never replaced.
func (s *Service) CreateNote(ctx context.Context, kbName, notePath, content string) (*NoteResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.meta.RLock()
	defer s.meta.RUnlock()
	kb, err := s.load(kbName)
	if err != nil {
		return nil, err
	}
	rel, err := s.target(kb, "note_path", notePath, true)
	if err != nil {
		return nil, err
	}
	defer s.locks.lock(rel)()
	if err := s.free(rel, "note_path", notePath); err != nil {
		return nil, err
	}
	v, ref, err := s.validate(ctx, kb, rel, content)
	if err != nil {
		return nil, err
	}
	if !v.Passed {
		return nil, violation(v, ref)
	}
	var n *core.Note
	var relinked []core.Relinked
	if r, ok := s.files.(FileCreateReporter); ok {
		n, relinked, err = r.CreateFileReporting(ctx, rel, []byte(content))
	} else {
		n, err = s.files.CreateFile(ctx, rel, []byte(content))
	}
	if err != nil {
		return nil, s.pathRefused("note_path", notePath, rel, err)
	}
	if n != nil && n.Path != "" {
		rel = n.Path
	}
	return &NoteResult{KB: kb, Note: NoteVersion{Path: rel, Content: content, Version: versionOf(n, content)}, Validation: v, Relinked: relinked}, nil
}

// UpdateNote replaces a note's content after machine validation. With
// expectedVersion it writes only when the note's current version (see
// NoteVersion) is that one, else version_conflict; nothing is written on
// any failure. The answer holds the content replaced and the new one.
func (s *Service) UpdateNote(ctx context.Context, kbName, notePath, content, expectedVersion string) (*NoteChange, error) {
	return s.rewrite(ctx, kbName, notePath, expectedVersion, func(string) string { return content })
}

// AppendNote adds content to a note: the new content is the original, a
// line break ("\n") and content, validated as a whole before it is
// written.
func (s *Service) AppendNote(ctx context.Context, kbName, notePath, content string) (*NoteChange, error) {
	return s.rewrite(ctx, kbName, notePath, "", func(original string) string { return original + "\n" + content })
}

// rewrite is UpdateNote and AppendNote: read, derive the new content,
// validate, check the version, compare-and-write.
func (s *Service) rewrite(ctx context.Context, kbName, notePath, expectedVersion string, next func(string) string) (*NoteChange, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.meta.RLock()
	defer s.meta.RUnlock()
	kb, rel, err := s.resolve(kbName, "note_path", notePath)
	if err != nil {
		return nil, err
	}
	defer s.locks.lock(rel)()
	for attempt := 1; ; attempt++ {
		raw, version, err := s.files.ReadFile(rel)
		if err != nil {
			return nil, s.missing(kb, err, rel, notePath)
		}
		original := string(raw)
		content := next(original)
		v, ref, err := s.validate(ctx, kb, rel, content)
		if err != nil {
			return nil, err
		}
		if !v.Passed {
			return nil, violation(v, ref)
		}
		if expectedVersion != "" && expectedVersion != version {
			return nil, conflict(rel, version)
		}
		n, err := s.files.WriteFile(ctx, rel, []byte(content), version)
		if errors.Is(err, core.ErrConflict) {
			// Changed by a writer outside the Service since it was read.
			if expectedVersion != "" || attempt == writeAttempts {
				_, now, _ := s.files.ReadFile(rel)
				return nil, conflict(rel, now)
			}
			continue
		}
		if err != nil {
			return nil, fileError(err, rel)
		}
		return &NoteChange{
			KB:         kb,
			Original:   NoteVersion{Path: rel, Content: original, Version: version},
			Updated:    NoteVersion{Path: rel, Content: content, Version: versionOf(n, content)},
			Validation: v,
		}, nil
	}
}

func conflict(rel, current string) *Error {
	return &Error{Code: CodeVersionConflict, CurrentVersion: current,
		Message: fmt.Sprintf("note %q changed since the version given; read it again (read_note returns its version), merge, and retry with the new version", rel)}
}

// MoveNote moves a note to another path of the same knowledge base after
// validating it against the destination's constraint; on failure the note
// stays where it was. An existing note is never replaced. Links of other
// notes to it are rewritten so they still resolve (as Obsidian does when
// it moves a file).
func (s *Service) MoveNote(ctx context.Context, kbName, originPath, newPath string) (*NoteMove, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.meta.RLock()
	defer s.meta.RUnlock()
	kb, from, err := s.resolve(kbName, "origin_note_path", originPath)
	if err != nil {
		return nil, err
	}
	to, err := s.target(kb, "new_note_path", newPath, true)
	if err != nil {
		return nil, err
	}
	defer s.locks.lock(from, to)()
	raw, _, err := s.files.ReadFile(from)
	if err != nil {
		return nil, s.missing(kb, err, from, originPath)
	}
	// The same path, or the ID form of the note's own path: nothing to
	// move. Another letter case of the note's own path is a rename.
	if from == to || strings.Trim(originPath, "/") == strings.Trim(newPath, "/") {
		return nil, newError(CodeNoteAlreadyExists, "origin_note_path and new_note_path are the same note %q", from)
	}
	if foldKey(from) != foldKey(to) {
		if err := s.free(to, "new_note_path", newPath); err != nil {
			return nil, err
		}
	}
	v, ref, err := s.validate(ctx, kb, to, string(raw))
	if err != nil {
		return nil, err
	}
	if !v.Passed {
		return nil, violation(v, ref)
	}
	report, err := s.files.Rename(ctx, from, to)
	if err != nil {
		return nil, s.pathRefused("new_note_path", newPath, to, err)
	}
	m := &NoteMove{KB: kb, From: from, To: to, Validation: v}
	if report != nil {
		m.FilesChanged, m.LinksChanged, m.Relinked = report.FilesChanged, report.LinksChanged, report.Relinked
	}
	return m, nil
}

// DeleteNote removes a note; a missing note is note_not_found (not an
// idempotent success), so a mistyped path is noticed.
func (s *Service) DeleteNote(ctx context.Context, kbName, notePath string) (*KnowledgeBase, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	s.meta.RLock()
	defer s.meta.RUnlock()
	kb, rel, err := s.resolve(kbName, "note_path", notePath)
	if err != nil {
		return nil, "", err
	}
	defer s.locks.lock(rel)()
	if err := s.files.DeleteFile(ctx, rel); err != nil {
		return nil, "", s.missing(kb, err, rel, notePath)
	}
	return kb, rel, nil
}

// ReadNote returns characters [offset, offset+limit) of a note's content.
func (s *Service) ReadNote(ctx context.Context, kbName, notePath string, offset, limit int) (*NotePage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	kb, rel, err := s.resolve(kbName, "note_path", notePath)
	if err != nil {
		return nil, err
	}
	raw, version, err := s.files.ReadFile(rel)
	if err != nil {
		return nil, s.missing(kb, err, rel, notePath)
	}
	return &NotePage{KB: kb, Path: rel, Version: version, Page: paginate(string(raw), offset, limit)}, nil
}

// ValidateNote checks an existing note against its folder constraint
// without changing it; a note that fails is a result with Passed false,
// not an error.
func (s *Service) ValidateNote(ctx context.Context, kbName, notePath string) (*NoteResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	kb, rel, err := s.resolve(kbName, "note_path", notePath)
	if err != nil {
		return nil, err
	}
	raw, version, err := s.files.ReadFile(rel)
	if err != nil {
		return nil, s.missing(kb, err, rel, notePath)
	}
	v, _, err := s.validate(ctx, kb, rel, string(raw))
	if err != nil {
		return nil, err
	}
	return &NoteResult{KB: kb, Note: NoteVersion{Path: rel, Content: string(raw), Version: version}, Validation: v}, nil
}

// missing maps a read or delete failure; note_not_found hints at the path
// frame when the path given already starts with the subfolder.
func (s *Service) missing(kb *KnowledgeBase, err error, rel, given string) error {
	if !errors.Is(err, core.ErrNotFound) {
		return fileError(err, rel)
	}
	msg := fmt.Sprintf("no note at %q", rel)
	if kb.Subfolder != "" && within(strings.Trim(given, "/"), kb.Subfolder) {
		msg += fmt.Sprintf("; note paths are relative to the knowledge base's subfolder %q, so leave that prefix out", kb.Subfolder)
	} else {
		msg += "; list_notes shows the notes of the knowledge base"
	}
	return &Error{Code: CodeNoteNotFound, Message: msg}
}

// free reports whether a note may be created at rel: no note is there,
// nor at a path that looks the same (letter case, Unicode form), which
// would be one file on macOS and Windows and one name to a person.
func (s *Service) free(rel, arg, given string) error {
	existing, err := s.files.NotePath(rel)
	if err != nil {
		return s.pathRefused(arg, given, rel, err)
	}
	if _, _, err := s.files.ReadFile(existing); err == nil {
		return noteExists(existing)
	} else if !errors.Is(err, core.ErrNotFound) {
		return fileError(err, existing)
	}
	return nil
}

func noteExists(rel string) *Error {
	return newError(CodeNoteAlreadyExists, "a note already exists at %q; choose another path, or change it with update_note", rel)
}

// fileError maps a Files failure to a spec code; failures of the file
// system or the store stay plain errors.
func fileError(err error, rel string) error {
	switch {
	case errors.Is(err, core.ErrNotFound):
		return newError(CodeNoteNotFound, "no note at %q", rel)
	case errors.Is(err, core.ErrExists):
		return noteExists(rel)
	case errors.Is(err, core.ErrInvalidPath):
		return newError(CodeInvalidNotePath, "the vault refuses the path %q: hidden or ignored folders, symbolic links and the characters # ^ [ ] | in note names are not allowed", rel)
	case errors.Is(err, core.ErrConflict):
		return conflict(rel, "")
	}
	return fmt.Errorf("kb: %s: %w", rel, err)
}

// versionOf is a written note's version: the hash the vault computed, or
// the same hash of content.
func versionOf(n *core.Note, content string) string {
	if n != nil && n.Hash != "" {
		return n.Hash
	}
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:])
}
