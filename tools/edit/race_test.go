package edit_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/tools/edit"
)

const editorEnv = "VAULTGRAPH_EDIT_TEST_EDITOR"

// TestEditNoteRacingAnEditorLosesNothing runs an editor process that
// appends lines to a note, in place, as fast as it can, while edit_note
// adds lines under the note's heading: every line of both must be in the
// note at the end. An edit the note kept changing under is refused as
// VERSION_CONFLICT and writes nothing; it is not counted.
func TestEditNoteRacingAnEditorLosesNothing(t *testing.T) {
	f := newFixture(t, map[string]string{"n.md": "# Log\n\nstart\n"})
	editor := exec.Command(os.Args[0], "-test.run=^TestHelperEditor$")
	editor.Env = append(os.Environ(), editorEnv+"="+filepath.Join(f.root, "n.md"))
	stdin, err := editor.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := editor.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := editor.Start(); err != nil {
		t.Fatal(err)
	}
	var editorLines []string
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "editor ") {
				editorLines = append(editorLines, sc.Text())
			}
		}
	}()

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
	if err := stdin.Close(); err != nil {
		t.Fatal(err)
	}
	<-read
	if err := editor.Wait(); err != nil {
		t.Fatal(err)
	}
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
// it appends a numbered line to the file, opened and closed each time,
// until its stdin ends (at most 3,000 lines, about one a millisecond: the
// note stays small enough that an edit is quick next to the appends),
// and prints each line it wrote.
func TestHelperEditor(t *testing.T) {
	file := os.Getenv(editorEnv)
	if file == "" {
		t.Skip("helper process")
	}
	stop := make(chan struct{})
	go func() {
		_, _ = bufio.NewReader(os.Stdin).ReadString(0)
		close(stop)
	}()
	for i := range 3000 {
		select {
		case <-stop:
			return
		default:
		}
		line := fmt.Sprintf("editor %d", i)
		f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(line + "\n"); err == nil {
			fmt.Println(line)
		}
		_ = f.Close()
		time.Sleep(time.Millisecond)
	}
}
