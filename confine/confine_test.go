package confine

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func open(t *testing.T) (*Root, string) {
	t.Helper()
	dir := t.TempDir()
	r, err := OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r, dir
}

func TestReadWriteRoundTrip(t *testing.T) {
	r, dir := open(t)
	if err := r.Create("a/b/n.md", []byte("one"), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := r.Create("a/b/n.md", []byte("two"), WriteOptions{}); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second create: %v, want fs.ErrExist", err)
	}
	if err := r.Replace("a/b/n.md", []byte("three"), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	data, info, err := r.ReadFile("a/b/n.md", 0)
	if err != nil || string(data) != "three" || info.Size != 5 || !info.IsRegular() {
		t.Fatalf("read: %q %+v %v", data, info, err)
	}
	if _, _, err := r.ReadFile("a/b/n.md", 2); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("max: %v", err)
	}
	if err := r.Rename("a/b/n.md", "c/m.md", true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "c", "m.md")); err != nil {
		t.Fatal(err)
	}
	if err := r.Remove("c/m.md"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.ReadFile("c/m.md", 0); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("read removed: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "a", "b"))
	for _, e := range entries {
		t.Errorf("left behind: %s", e.Name())
	}
}

func TestInvalidPaths(t *testing.T) {
	r, _ := open(t)
	for _, p := range []string{"../x.md", "a/../../x.md", "/etc/passwd", "a//b.md", "./a.md", "a/./b", "a\x00b"} {
		if _, _, err := r.ReadFile(p, 0); !errors.Is(err, ErrInvalidPath) {
			t.Errorf("ReadFile(%q) = %v, want ErrInvalidPath", p, err)
		}
		if err := r.Replace(p, nil, WriteOptions{}); !errors.Is(err, ErrInvalidPath) {
			t.Errorf("Replace(%q) = %v, want ErrInvalidPath", p, err)
		}
	}
}

func TestSymlinksAndFilesInTheWay(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	r, dir := open(t)
	outside := t.TempDir()
	must(t, os.WriteFile(filepath.Join(outside, "canary.md"), []byte("SECRET"), 0o644))
	must(t, os.Symlink(outside, filepath.Join(dir, "link")))
	must(t, os.Symlink(filepath.Join(outside, "canary.md"), filepath.Join(dir, "note.md")))
	must(t, os.WriteFile(filepath.Join(dir, "file.md"), []byte("x"), 0o644))

	var bad *BadNameError
	if _, _, err := r.ReadFile("link/canary.md", 0); !errors.As(err, &bad) || bad.Path != "link" || !errors.Is(err, ErrSymlink) {
		t.Errorf("read through a linked folder: %v", err)
	}
	if _, _, err := r.ReadFile("note.md", 0); !errors.Is(err, ErrSymlink) {
		t.Errorf("read a linked file: %v", err)
	}
	if err := r.Create("link/new.md", []byte("x"), WriteOptions{}); !errors.Is(err, ErrSymlink) {
		t.Errorf("create through a linked folder: %v", err)
	}
	if err := r.Create("file.md/x.md", []byte("x"), WriteOptions{}); !errors.As(err, &bad) || bad.Path != "file.md" || !errors.Is(err, ErrNotDir) {
		t.Errorf("create below a file: %v", err)
	}
	if err := r.MkdirAll("file.md/sub"); !errors.Is(err, ErrNotDir) {
		t.Errorf("mkdir below a file: %v", err)
	}
	// Replacing a link replaces the link, never its target.
	must(t, r.Replace("note.md", []byte("mine"), WriteOptions{}))
	if got, _ := os.ReadFile(filepath.Join(outside, "canary.md")); string(got) != "SECRET" {
		t.Errorf("the link's target was written: %q", got)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Errorf("files outside: %d", len(entries))
	}
}

func TestSwapRefusesAChangedFile(t *testing.T) {
	r, _ := open(t)
	must(t, r.Create("n.md", []byte("v1"), WriteOptions{}))
	err := r.Swap("n.md", []byte("v2"), func(cur []byte) bool { return string(cur) == "v0" }, WriteOptions{})
	if !errors.Is(err, ErrChanged) {
		t.Fatalf("swap on a changed file: %v", err)
	}
	must(t, r.Swap("n.md", []byte("v2"), func(cur []byte) bool { return string(cur) == "v1" }, WriteOptions{}))
	if data, _, _ := r.ReadFile("n.md", 0); string(data) != "v2" {
		t.Fatalf("after swap: %q", data)
	}
	if err := r.Swap("gone.md", nil, func([]byte) bool { return true }, WriteOptions{}); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("swap of a missing file: %v", err)
	}
}

// TestSwapLosesNoOutsideEdit races a read-modify-write loop (each round
// adds one line through Swap, re-reading on ErrChanged) against an editor
// in another process that, every millisecond, either appends a line in
// place (open, write, close: how Obsidian and most editors save) or saves
// the whole file by rename (how sync clients and some editors do). Every
// line the editor wrote must be in the file at the end.
func TestSwapLosesNoOutsideEdit(t *testing.T) {
	r, dir := open(t)
	must(t, r.Create("n.md", []byte("start\n"), WriteOptions{}))
	abs := filepath.Join(dir, "n.md")
	rounds := 1500
	if soak() {
		rounds = 30000
	}
	editor := exec.Command(os.Args[0], "-test.run=^TestHelperEditor$")
	editor.Env = append(os.Environ(), "CONFINE_EDITOR_FILE="+abs)
	stdin, err := editor.StdinPipe()
	must(t, err)
	var out bytes.Buffer
	editor.Stdout = &out
	editor.Stderr = os.Stderr
	must(t, editor.Start())

	var ours []string
	for i := range rounds {
		line := fmt.Sprintf("tool %d\n", i)
		for try := 0; ; try++ {
			cur, _, err := r.ReadFile("n.md", 0)
			if err != nil {
				t.Fatal(err)
			}
			err = r.Swap("n.md", append(bytes.Clone(cur), line...), func(now []byte) bool { return bytes.Equal(now, cur) }, WriteOptions{NoSync: true})
			if err == nil {
				break
			}
			if !errors.Is(err, ErrChanged) {
				t.Fatal(err)
			}
			if try > 10000 {
				t.Fatal("no progress")
			}
		}
		ours = append(ours, line)
	}
	_ = stdin.Close() // the editor stops at the end of its stdin
	must(t, editor.Wait())
	var editorLines []string
	for _, l := range strings.Fields(out.String()) {
		if strings.HasPrefix(l, "append_") || strings.HasPrefix(l, "save_") {
			editorLines = append(editorLines, l)
		}
	}
	final, _, err := r.ReadFile("n.md", 0)
	must(t, err)
	lost, lostOurs := 0, 0
	for _, l := range editorLines {
		if !strings.Contains(string(final), strings.ReplaceAll(l, "_", " ")+"\n") {
			lost++
			if lost < 10 {
				t.Log("lost", l)
			}
		}
	}
	for _, l := range ours {
		if !strings.Contains(string(final), l) {
			lostOurs++
		}
	}
	// A whole-file save made from a copy read before a tool's write drops
	// that write: the editor's own lost update, which no server can
	// prevent. What must never be dropped is what the editor wrote.
	t.Logf("%d tool edits (%d dropped by the editor's stale saves), %d editor saves, %d lost", len(ours), lostOurs, len(editorLines), lost)
	if len(editorLines) < 50 {
		t.Fatalf("the editor saved only %d times", len(editorLines))
	}
	if lost > 0 {
		t.Fatalf("%d editor saves lost", lost)
	}
}

// TestHelperEditor is the editor process of TestSwapLosesNoOutsideEdit:
// it saves until its stdin ends and prints each line it saved ("append_3",
// "save_4").
func TestHelperEditor(t *testing.T) {
	abs := os.Getenv("CONFINE_EDITOR_FILE")
	if abs == "" {
		t.Skip("helper process")
	}
	done := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); close(done) }()
	dir := filepath.Dir(abs)
	for i := 0; ; i++ {
		select {
		case <-done:
			return
		case <-time.After(time.Millisecond):
		}
		var err error
		var line string
		if i%2 == 0 {
			line = fmt.Sprintf("append %d", i)
			var f *os.File
			if f, err = os.OpenFile(abs, os.O_APPEND|os.O_WRONLY, 0); err == nil {
				_, err = f.WriteString(line + "\n")
				_ = f.Close()
			}
		} else {
			line = fmt.Sprintf("save %d", i)
			var cur []byte
			if cur, err = os.ReadFile(abs); err == nil {
				tmp := filepath.Join(dir, ".editor.tmp")
				if err = os.WriteFile(tmp, append(cur, line+"\n"...), 0o644); err == nil {
					err = os.Rename(tmp, abs)
				}
			}
		}
		if err == nil {
			fmt.Println(strings.ReplaceAll(line, " ", "_"))
		}
	}
}

// TestNoEscapeWhileFoldersAreSwapped swaps a folder of the root for a
// symbolic link to an outside folder at full speed while writes, reads and
// renames go on: nothing may land outside, nothing outside may be read.
func TestNoEscapeWhileFoldersAreSwapped(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	r, dir := open(t)
	outside := t.TempDir()
	must(t, os.WriteFile(filepath.Join(outside, "n.md"), []byte("SECRET"), 0o644))
	sub := filepath.Join(dir, "sub")
	must(t, os.Mkdir(sub, 0o755))
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		for !stop.Load() {
			_ = os.Rename(sub, sub+".real")
			_ = os.Symlink(outside, sub)
			runtime.Gosched()
			_ = os.Remove(sub)
			_ = os.Rename(sub+".real", sub)
		}
	})
	n := 400
	if soak() {
		n = 20000
	}
	for i := range n {
		_ = r.Create(fmt.Sprintf("sub/c%d.md", i), []byte("x"), WriteOptions{NoSync: true})
		_ = r.Replace("sub/n.md", []byte("mine"), WriteOptions{NoSync: true})
		_ = r.Rename("sub/n.md", "sub/m.md", false)
		_ = r.MkdirAll("sub/deeper")
		if data, _, err := r.ReadFile("sub/n.md", 0); err == nil && strings.Contains(string(data), "SECRET") {
			t.Fatalf("read outside the root")
		}
		_ = r.Swap("sub/m.md", []byte("swap"), func([]byte) bool { return true }, WriteOptions{NoSync: true})
	}
	stop.Store(true)
	wg.Wait()
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("files outside the root: %v", names)
	}
	if got, _ := os.ReadFile(filepath.Join(outside, "n.md")); string(got) != "SECRET" {
		t.Fatalf("outside file changed: %q", got)
	}
}

// soak reports whether the long versions of the race tests run (make soak).
func soak() bool { return os.Getenv("VAULTGRAPH_SOAK") != "" }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestRecoverRepairsATornWrite(t *testing.T) {
	r, dir := open(t)
	old := []byte(strings.Repeat("old line\n", 50))
	data := []byte(strings.Repeat("NEW\n", 30))
	cases := []struct {
		name string
		cur  []byte
		want []byte
		out  RecoverOutcome
	}{
		{"finished", data, data, RecoverDone},
		{"not started", old, old, RecoverDone},
		{"written but not cut", append(bytes.Clone(data), old[len(data):]...), data, RecoverRepaired},
		{"half written", append(bytes.Clone(data[:37]), old[37:]...), data, RecoverRepaired},
		{"edited since", []byte("someone else's text\n"), []byte("someone else's text\n"), RecoverSuperseded},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			note := fmt.Sprintf("n%d.md", i)
			must(t, os.WriteFile(filepath.Join(dir, note), c.cur, 0o644))
			redo := redoName(note, "0123456789abcdef")
			must(t, os.WriteFile(filepath.Join(dir, redo), encodeRedo(old, data), 0o600))
			out, err := r.Recover(redo)
			must(t, err)
			got, _ := os.ReadFile(filepath.Join(dir, note))
			if runtime.GOOS == "linux" || runtime.GOOS == "darwin" {
				if out != c.out || !bytes.Equal(got, c.want) {
					t.Fatalf("outcome %d, content %q; want %d, %q", out, got, c.out, c.want)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, redo)); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("redo file left: %v", err)
			}
		})
	}
	if RedoTarget(redoName("a.b.md", "0123456789abcdef")) != "a.b.md" || RedoTarget(".vaultgraph-x.tmp") != "" {
		t.Fatal("RedoTarget")
	}
}

func TestRemoveDirRemovesOnlyEmptyFolders(t *testing.T) {
	r, dir := open(t)
	if err := r.MkdirAll("a/b"); err != nil {
		t.Fatal(err)
	}
	if err := r.Replace("f.md", []byte("x"), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := r.RemoveDir("a"); err == nil {
		t.Fatal("removed a folder that is not empty")
	}
	if err := r.RemoveDir("f.md"); err == nil {
		t.Fatal("RemoveDir removed a file")
	}
	if runtime.GOOS != "windows" {
		if err := os.Symlink(filepath.Join(dir, "a"), filepath.Join(dir, "l")); err != nil {
			t.Fatal(err)
		}
		if err := r.RemoveDir("l/b"); !errors.Is(err, ErrSymlink) {
			t.Fatalf("RemoveDir through a link: %v, want ErrSymlink", err)
		}
	}
	if err := r.RemoveDir("a/b"); err != nil {
		t.Fatal(err)
	}
	if err := r.RemoveDir("a"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a still there: %v", err)
	}
}

// A writer that opened the note before Swap and writes only after Swap
// replaced it (an editor descheduled between its open and its write, for
// longer than Swap waits for a lease) must not lose its write: Swap waits
// for it to close the replaced file, sees the write and puts it back.
func TestSwapWaitsForAWriterThatOpenedBefore(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("file leases are Linux's")
	}
	r, dir := open(t)
	if err := r.Create("n.md", []byte("v1\n"), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "n.md")
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	editor, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	swapped := make(chan error, 1)
	go func() {
		swapped <- r.Swap("n.md", []byte("tool\n"), func(cur []byte) bool { return string(cur) == "v1\n" }, WriteOptions{})
	}()
	// Write only once Swap has put its file in place (no lease while the
	// editor holds the note open, so Swap exchanges).
	deadline := time.Now().Add(time.Minute)
	for {
		now, err := os.Stat(path)
		if err == nil && !os.SameFile(before, now) {
			break
		}
		select {
		case err := <-swapped:
			t.Fatalf("Swap returned before replacing the file: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("Swap never replaced the file")
		}
		time.Sleep(time.Millisecond)
	}
	if _, err := editor.WriteString("editor\n"); err != nil {
		t.Fatal(err)
	}
	if err := editor.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-swapped; !errors.Is(err, ErrChanged) {
		t.Fatalf("Swap: %v, want ErrChanged (the editor wrote after the check)", err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "v1\neditor\n" {
		t.Fatalf("note %q: the editor's line is lost", got)
	}
}

// Where Swap writes in place under a lease (Linux), a change found there
// gets Redo's content, computed from it; elsewhere it is ErrChanged.
func TestSwapRedoesOnTheCurrentContent(t *testing.T) {
	r, dir := open(t)
	if err := r.Create("n.md", []byte("v1\neditor\n"), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	redo := func(cur []byte) ([]byte, error) { return append([]byte("tool\n"), cur...), nil }
	err := r.Swap("n.md", []byte("tool\nv1\n"), func(cur []byte) bool { return string(cur) == "v1\n" }, WriteOptions{Redo: redo})
	got, _ := os.ReadFile(filepath.Join(dir, "n.md"))
	switch {
	case runtime.GOOS == "linux" && err == nil:
		if string(got) != "tool\nv1\neditor\n" {
			t.Fatalf("note %q", got)
		}
	case runtime.GOOS != "linux" && errors.Is(err, ErrChanged):
		if string(got) != "v1\neditor\n" {
			t.Fatalf("note %q", got)
		}
	default:
		t.Fatalf("Swap: %v (note %q)", err, got)
	}
}
