//go:build linux || darwin

package confine

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// ReadFile gives a file's bytes with the Info os.Lstat gives (size,
// modification time, inode), an empty file included; it refuses a named
// pipe at once (it must not wait for a writer) and a link as the last
// name, whatever it points at.
func TestReadFileOfEachKind(t *testing.T) {
	r, dir := open(t)
	write := func(rel string, data []byte) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, size := range []int{0, 1, 4095, 4096, 70000} {
		data := bytes.Repeat([]byte("x"), size)
		write("a/n.md", data)
		got, info, err := r.ReadFile("a/n.md", 0)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("size %d: read %d bytes, %v", size, len(got), err)
		}
		fi, err := os.Lstat(filepath.Join(dir, "a/n.md"))
		if err != nil {
			t.Fatal(err)
		}
		ino := fi.Sys().(*syscall.Stat_t).Ino
		if info.Size != int64(size) || !info.ModTime.Equal(fi.ModTime()) || info.Ino != uint64(ino) || !info.IsRegular() || info.Mode.Perm() != fi.Mode().Perm() {
			t.Errorf("size %d: info %+v, want size, mtime %v, inode %d and mode %v of os.Lstat", size, info, fi.ModTime(), ino, fi.Mode())
		}
	}

	if err := syscall.Mkfifo(filepath.Join(dir, "a/pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.ReadFile("a/pipe.md", 0); !errors.Is(err, ErrNotRegular) {
		t.Errorf("named pipe: %v, want ErrNotRegular", err)
	}

	write("outside.md", []byte("secret"))
	if err := os.Symlink(filepath.Join(dir, "outside.md"), filepath.Join(dir, "a/link.md")); err != nil {
		t.Fatal(err)
	}
	if data, _, err := r.ReadFile("a/link.md", 0); err == nil {
		t.Errorf("a link as the last name was followed: %q", data)
	}
}
