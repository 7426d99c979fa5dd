// Package editorproc gives tests an outside editor: another process (the
// test binary itself, re-run) that appends numbered lines to a note,
// opening and closing the file for each, the way an editor's in-place
// save does, while the test writes the same note. A test that loses none
// of its lines shows a write path that loses no outside edit.
package editorproc

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// fileEnv names the file the editor process appends to.
const fileEnv = "VAULTGRAPH_TEST_EDITOR_FILE"

// Editor is a running editor process.
type Editor struct {
	cmd   *exec.Cmd
	stdin interface{ Close() error }
	read  chan struct{}
	lines []string
}

// Start re-runs the test binary as the editor of file: helper names the
// test that calls Run (e.g. "TestHelperEditor").
func Start(t testing.TB, helper, file string) *Editor {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+helper+"$")
	cmd.Env = append(os.Environ(), fileEnv+"="+file)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	e := &Editor{cmd: cmd, stdin: stdin, read: make(chan struct{})}
	go func() {
		defer close(e.read)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "editor ") {
				e.lines = append(e.lines, sc.Text())
			}
		}
	}()
	return e
}

// Stop ends the editor and returns every line it wrote to the file.
func (e *Editor) Stop(t testing.TB) []string {
	t.Helper()
	if err := e.stdin.Close(); err != nil {
		t.Fatal(err)
	}
	<-e.read
	if err := e.cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	return e.lines
}

// Run is the body of the helper test Start names. In the editor process
// it appends "editor N" lines to the file, one every pause, at most max,
// until its stdin ends, printing each line it wrote; in the test process
// itself it skips.
func Run(t *testing.T, pause time.Duration, max int) {
	file := os.Getenv(fileEnv)
	if file == "" {
		t.Skip("the editor of another test, run as its own process")
	}
	stop := make(chan struct{})
	go func() {
		_, _ = bufio.NewReader(os.Stdin).ReadString(0)
		close(stop)
	}()
	for i := range max {
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
		time.Sleep(pause)
	}
}
