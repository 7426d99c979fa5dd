package kb

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/vaultgraph/vaultgraph/core"
)

// CheckNoteWrite is a core.NoteCheck for writers other than the
// knowledge base tools (the graph toolset's create_node and update_node):
// a note about to be written at the vault-relative path rel with content
// inside a knowledge base's subfolder must pass the same validation as
// create_note and update_note, so that a knowledge base's guarantees
// cannot be bypassed by another toolset. A note outside every knowledge
// base passes. A failure is a *core.ConstraintError whose Issues are the
// []Issue create_note would report; a constraint file that cannot be used
// fails the write the same way. When the knowledge bases cannot be listed
// at all, the write goes unchecked (and that is logged). It reads the metadata without taking the
// Service's locks: it runs inside the vault writer's lock, which the
// Service's own writes take after theirs.
func (s *Service) CheckNoteWrite(ctx context.Context, rel string, content []byte) error {
	kbs, _, err := s.scan(ctx)
	if err != nil {
		// The knowledge bases cannot be read at all (their folder is a
		// link, the disk fails): the kb tools fail too, and the graph
		// tools are not held hostage to it.
		s.log.WarnContext(ctx, "kb: knowledge bases unreadable; a graph write goes unchecked", "path", rel, "err", err)
		return nil
	}
	for _, kb := range kbs {
		if !within(rel, kb.Subfolder) {
			continue
		}
		v, ref, err := s.validate(ctx, kb, rel, string(content))
		var ke *Error
		if errors.As(err, &ke) {
			return &core.ConstraintError{Msg: fmt.Sprintf("%q lies in knowledge base %q: %s", rel, kb.Name, ke.Message)}
		}
		if err != nil {
			return err
		}
		if v.Passed {
			return nil
		}
		msgs := make([]string, len(v.Issues))
		for i, is := range v.Issues {
			msgs[i] = is.Message
		}
		return &core.ConstraintError{
			Msg: fmt.Sprintf("%q lies in knowledge base %q, whose folder constraint for %q it would not satisfy: %s; change the note to satisfy it (issues lists each problem; the kb tools create_note and update_note check the same rules)",
				rel, kb.Name, displayFolder(ref.Subfolder), strings.Join(msgs, "; ")),
			Issues: v.Issues,
		}
	}
	return nil
}
