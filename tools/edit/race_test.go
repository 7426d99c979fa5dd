package edit_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/internal/editorproc"
	"github.com/vaultgraph/vaultgraph/tools/edit"
)

// TestEditNoteRacingAnEditorLosesNothing runs an editor process that
// appends lines to a note, in place, as fast as it can, while edit_note
// adds lines under the note's heading: every line of both must be in the
// note at the end. An edit the note kept changing under is refused as
// VERSION_CONFLICT and writes nothing; it is not counted.
func TestEditNoteRacingAnEditorLosesNothing(t *testing.T) {
	f := newFixture(t, map[string]string{"n.md": "# Log\n\nstart\n"})
	editor := editorproc.Start(t, "TestHelperEditor", filepath.Join(f.root, "n.md"))

	rounds, conflicts := 100, 0
	var ours []string
	for i := range rounds {
		line := fmt.Sprintf("tool %d", i)
		res, text := call(t, f.client, edit.EditNoteName, map[string]any{"id": "n.md", "operation": "prepend", "heading": "Log", "content": line})
		if res.IsError {
			if !strings.Contains(text, edit.CodeVersionConflict) {
				t.Fatalf("edit %d: %s", i, text)
			}
			conflicts++
			continue
		}
		ours = append(ours, line)
	}
	editorLines := editor.Stop(t)
	final := f.read(t, "n.md")
	lost := 0
	for _, l := range append(editorLines, ours...) {
		if !strings.Contains(final, l+"\n") {
			if lost++; lost < 5 {
				t.Errorf("lost %q", l)
			}
		}
	}
	t.Logf("%d edits (%d refused as conflicts), %d editor appends, %d lost", len(ours), conflicts, len(editorLines), lost)
	if len(editorLines) < 50 {
		t.Errorf("the editor appended %d lines: too few to race anything", len(editorLines))
	}
	if len(ours) < rounds*9/10 {
		t.Errorf("%d of %d edits went through", len(ours), rounds)
	}
}

// TestHelperEditor is the editor of TestEditNoteRacingAnEditorLosesNothing:
// a line about every millisecond, at most 3,000 (the note stays small
// enough that an edit is quick next to the appends).
func TestHelperEditor(t *testing.T) { editorproc.Run(t, time.Millisecond, 3000) }
