package kb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/vaultgraph/vaultgraph/confine"
	"golang.org/x/text/unicode/norm"
)

// ListKnowledgeBases returns every knowledge base of the vault, by name.
func (s *Service) ListKnowledgeBases(ctx context.Context) ([]Summary, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	kbs, _, err := s.scan(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Summary, len(kbs))
	for i, kb := range kbs {
		out[i] = kb.summary()
	}
	return out, nil
}

// NewKnowledgeBase is what add_knowledge_base asks for.
type NewKnowledgeBase struct {
	Name              string
	Description       string
	Subfolder         string // vault-relative
	OrganizationRules string
}

// AddKnowledgeBase creates a knowledge base: its name must be new (letter
// case and Unicode form ignored, since the name is a folder name) and its
// subfolder must not overlap another knowledge base's. The subfolder is
// created in the vault when missing, as the plugin does.
//
// It is all or nothing: the folders are made first and meta.md, which is
// what makes the knowledge base exist, last (created, never replacing
// one); when a step fails, the folders it made are removed again, so
// nothing is registered and the same call can be retried.
func (s *Service) AddKnowledgeBase(ctx context.Context, in NewKnowledgeBase) (*KnowledgeBase, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	name := norm.NFC.String(in.Name)
	if err := checkName(name); err != nil {
		return nil, err
	}
	sub, err := cleanRel("subfolder", in.Subfolder)
	if err != nil {
		return nil, err
	}
	s.meta.Lock()
	defer s.meta.Unlock()
	kbs, folders, err := s.scan(ctx)
	if err != nil {
		return nil, err
	}
	for _, f := range folders {
		if foldKey(f) == foldKey(name) {
			return nil, newError(CodeKnowledgeBaseAlreadyExists, "a knowledge base named %q already exists; choose another name or use update_knowledge_base", f)
		}
	}
	if sub, err = s.folder("subfolder", in.Subfolder, sub, true); err != nil {
		return nil, err
	}
	if err := overlapError(kbs, name, sub); err != nil {
		return nil, err
	}
	kb := &KnowledgeBase{
		Name:              name,
		CreateTime:        s.now().UTC().Format(time.RFC3339),
		Description:       in.Description,
		Subfolder:         sub,
		OrganizationRules: in.OrganizationRules,
	}
	made, err := s.mkdirs(sub)
	if err != nil {
		s.removeDirs(made)
		return nil, pathError("subfolder", in.Subfolder, sub, err)
	}
	more, err := s.mkdirs(kbPath(kb.Name, constraintsDir))
	made = append(made, more...)
	if err == nil {
		err = s.fs.Create(kbPath(kb.Name, metaFile), encodeMeta(kb), confine.WriteOptions{})
	}
	if err != nil {
		s.removeDirs(made)
		if errors.Is(err, fs.ErrExist) { // made meanwhile by the plugin or a person
			return nil, newError(CodeKnowledgeBaseAlreadyExists, "a knowledge base named %q already exists; choose another name or use update_knowledge_base", kb.Name)
		}
		return nil, fmt.Errorf("kb: create knowledge base %s: %w", kb.Name, err)
	}
	s.syncCache(ctx, append(kbs, kb))
	return kb, nil
}

// overlapError is subfolder_overlap when sub shares notes with another
// knowledge base than self.
func overlapError(kbs []*KnowledgeBase, self, sub string) error {
	for _, other := range kbs {
		if other.Name != self && overlaps(sub, other.Subfolder) {
			return newError(CodeSubfolderOverlap, "subfolder %q overlaps knowledge base %q, which manages %q; knowledge bases may not share folders",
				sub, other.Name, displayFolder(other.Subfolder))
		}
	}
	return nil
}

func displayFolder(p string) string {
	if p == "" {
		return "the whole vault"
	}
	return p
}

// KnowledgeBaseUpdate is what update_knowledge_base asks for; nil fields
// are left as they are.
type KnowledgeBaseUpdate struct {
	Description       *string
	Subfolder         *string
	OrganizationRules *string
}

// UpdateKnowledgeBase changes a knowledge base's metadata; create_time
// stays. A new subfolder must not overlap another knowledge base; notes
// are not moved, and the returned notes say what a subfolder change left
// behind (notes at the old place, constraints now outside the scope).
func (s *Service) UpdateKnowledgeBase(ctx context.Context, name string, upd KnowledgeBaseUpdate) (*KnowledgeBase, []string, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	s.meta.Lock()
	defer s.meta.Unlock()
	kb, raw, err := s.loadRaw(name)
	if err != nil {
		return nil, nil, err
	}
	var notes []string
	if upd.Description == nil && upd.Subfolder == nil && upd.OrganizationRules == nil {
		return kb, []string{"No field was given: nothing changed. Pass description, subfolder or organization_rules."}, nil
	}
	old := kb.Subfolder
	if upd.Subfolder != nil {
		sub, err := cleanRel("subfolder", *upd.Subfolder)
		if err != nil {
			return nil, nil, err
		}
		if sub, err = s.folder("subfolder", *upd.Subfolder, sub, true); err != nil {
			return nil, nil, err
		}
		if sub != old {
			kbs, _, err := s.scan(ctx)
			if err != nil {
				return nil, nil, err
			}
			if err := overlapError(kbs, kb.Name, sub); err != nil {
				return nil, nil, err
			}
			kb.Subfolder = sub
		}
	}
	if upd.Description != nil {
		kb.Description = *upd.Description
	}
	if upd.OrganizationRules != nil {
		kb.OrganizationRules = *upd.OrganizationRules
	}
	// The new subfolder first, meta.md last, as in AddKnowledgeBase.
	var made []string
	if kb.Subfolder != old {
		if made, err = s.mkdirs(kb.Subfolder); err != nil {
			s.removeDirs(made)
			return nil, nil, pathError("subfolder", *upd.Subfolder, kb.Subfolder, err)
		}
	}
	if kb, err = s.swapMeta(kb, raw, upd); err != nil {
		s.removeDirs(made)
		return nil, nil, err
	}
	if kb.Subfolder != old {
		notes = s.subfolderChangeNotes(ctx, kb, old)
	}
	if kbs, _, err := s.scan(ctx); err == nil {
		s.syncCache(ctx, kbs)
	}
	return kb, notes, nil
}

// metaWriteHook, when set (tests), is called before each attempt to
// write meta.md: an editor's save at the worst moment.
var metaWriteHook func(attempt int)

// metaAttempts bounds the rereads of meta.md changed by an editor while
// update_knowledge_base writes it.
const metaAttempts = 5

// swapMeta writes kb's meta.md only if the file is still raw, the bytes kb
// was read from (a compare-and-write, as every note write is): when an
// editor changed it meanwhile, meta.md is read again, the update's fields
// applied to what is there now (a new subfolder as kb has it, already
// checked), and written against those bytes, so an outside edit of the
// other fields is kept. It returns the knowledge base as written.
func (s *Service) swapMeta(kb *KnowledgeBase, raw []byte, upd KnowledgeBaseUpdate) (*KnowledgeBase, error) {
	rel := kbPath(kb.Name, metaFile)
	for attempt := 1; ; attempt++ {
		if metaWriteHook != nil {
			metaWriteHook(attempt)
		}
		err := s.fs.Swap(rel, encodeMeta(kb), func(cur []byte) bool { return bytes.Equal(cur, raw) }, confine.WriteOptions{})
		if err == nil {
			return kb, nil
		}
		if !errors.Is(err, confine.ErrChanged) || attempt == metaAttempts {
			return nil, fmt.Errorf("kb: write %s: %w", rel, err)
		}
		now, nowRaw, lerr := s.loadRaw(kb.Name)
		if lerr != nil {
			return nil, lerr
		}
		if upd.Subfolder != nil {
			now.Subfolder = kb.Subfolder
		}
		if upd.Description != nil {
			now.Description = *upd.Description
		}
		if upd.OrganizationRules != nil {
			now.OrganizationRules = *upd.OrganizationRules
		}
		kb, raw = now, nowRaw
	}
}

// subfolderChangeNotes describes what a subfolder change did not carry
// along.
func (s *Service) subfolderChangeNotes(ctx context.Context, kb *KnowledgeBase, old string) []string {
	notes := []string{fmt.Sprintf("The subfolder changed from %q to %q. Notes were not moved.", displayFolder(old), displayFolder(kb.Subfolder))}
	if !within(old, kb.Subfolder) {
		if paths, err := s.walkNotes(old); err == nil && len(paths) > 0 {
			notes = append(notes, fmt.Sprintf("%d note(s) remain under %q and are no longer managed by this knowledge base; move them into %q (for example with a file manager or Obsidian) to manage them again.",
				len(paths), displayFolder(old), displayFolder(kb.Subfolder)))
		}
	}
	constraints, err := s.constraints(ctx, kb.Name)
	if err != nil {
		return notes
	}
	var outside []string
	for _, c := range constraints {
		if !within(c.Subfolder, kb.Subfolder) {
			outside = append(outside, c.Subfolder)
		}
	}
	if len(outside) > 0 {
		notes = append(notes, fmt.Sprintf("Folder constraints for %s now lie outside the knowledge base and no longer apply; add them again under %q with add_knowledge_base_folder_constraint.",
			strings.Join(quoteAll(outside), ", "), displayFolder(kb.Subfolder)))
	}
	return notes
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// AddFolderConstraint stores rules for the notes under subfolder
// (vault-relative, inside the knowledge base). A constraint already
// declared for the same folder is replaced. Rules that are invalid (bad
// regular expression, unknown type, ...) are refused with
// schema_validation_failed and nothing is written.
func (s *Service) AddFolderConstraint(ctx context.Context, kbName, subfolder string, rules Rules) (*Constraint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.meta.Lock()
	defer s.meta.Unlock()
	kb, err := s.load(kbName)
	if err != nil {
		return nil, err
	}
	sub, err := cleanRel("subfolder", subfolder)
	if err != nil {
		return nil, err
	}
	if sub, err = s.folder("subfolder", subfolder, sub, true); err != nil {
		return nil, err
	}
	if !within(sub, kb.Subfolder) {
		hint := ""
		if guess := joinRel(kb.Subfolder, sub); kb.Subfolder != "" {
			hint = fmt.Sprintf(" (subfolder is vault-relative: did you mean %q?)", guess)
		}
		return nil, newError(CodeInvalidNotePath, "subfolder %q is outside knowledge base %q, which manages %q%s", sub, kb.Name, displayFolder(kb.Subfolder), hint)
	}
	if _, problems := compileRules(rules); len(problems) > 0 {
		return nil, rulesError(problems)
	}
	c := Constraint{KBName: kb.Name, Subfolder: sub, Rules: rules}
	if err := s.writeConstraint(ctx, c); err != nil {
		return nil, err
	}
	return &c, nil
}

// writeConstraint stores c, replacing the constraint files declared for
// the same folder: the first keeps its name and gets the new rules, the
// others are removed, so c's rules are the folder's only rules.
func (s *Service) writeConstraint(ctx context.Context, c Constraint) error {
	existing, err := s.constraints(ctx, c.KBName)
	if err != nil {
		return err
	}
	target := ""
	taken := map[string]bool{}
	var stale []string
	for _, e := range existing {
		taken[strings.ToLower(e.file)] = true
		if !strings.EqualFold(e.Subfolder, c.Subfolder) {
			continue
		}
		if target == "" {
			target = e.file
		} else {
			stale = append(stale, e.file)
		}
	}
	if target == "" {
		target = constraintFileName(c.Subfolder)
		if taken[strings.ToLower(target)] || s.exists(kbPath(c.KBName, constraintsDir, target)) {
			target = strings.TrimSuffix(target, ".md") + "-" + shortHash(c.Subfolder) + ".md"
		}
	}
	if err := s.writeMeta(kbPath(c.KBName, constraintsDir, target), encodeConstraint(c)); err != nil {
		return err
	}
	for _, f := range stale {
		if err := s.fs.Remove(kbPath(c.KBName, constraintsDir, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("kb: remove replaced constraint %s: %w", f, err)
		}
	}
	return nil
}

// constraints reads the constraint files of a knowledge base, in file
// name order. Files whose folder cannot be read are skipped and logged.
func (s *Service) constraints(ctx context.Context, kbName string) ([]*constraintFile, error) {
	dir := kbPath(kbName, constraintsDir)
	entries, err := s.fs.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("kb: list constraints of %s: %w", kbName, err)
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	var out []*constraintFile
	for _, e := range entries {
		if !e.Type().IsRegular() || !isNoteName(e.Name()) || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		raw, err := s.readMeta(dir + "/" + e.Name())
		if err != nil {
			return nil, fmt.Errorf("kb: read constraint %s: %w", e.Name(), err)
		}
		cf, err := decodeConstraint(kbName, e.Name(), raw)
		if err != nil {
			s.log.WarnContext(ctx, "kb: skipping a constraint file without a usable subfolder", "kb", kbName, "file", e.Name(), "err", err)
			continue
		}
		out = append(out, cf)
	}
	return out, nil
}

func joinRel(dir, rel string) string {
	switch {
	case dir == "":
		return rel
	case rel == "":
		return dir
	}
	return dir + "/" + rel
}
