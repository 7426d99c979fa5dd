package owner

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

// One owner per folder: a second TryLock is refused until the first is
// released (closing the descriptor; a process's exit does the same).
func TestOneOwnerPerFolder(t *testing.T) {
	dir := t.TempDir()
	l, err := TryLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := TryLock(dir); !errors.Is(err, ErrHeld) {
		t.Fatalf("second TryLock: %v, want ErrHeld", err)
	}
	l.Release()
	l.Release() // twice: nothing
	l2, err := TryLock(dir)
	if err != nil {
		t.Fatalf("TryLock after Release: %v", err)
	}
	l2.Release()
}

// ReadLine keeps at most MaxLine bytes of a line without its end (issue
// 43: a 400 MiB Hello took the owner from 34 to 813 MiB) and refuses it.
func TestReadLineRefusesALongLine(t *testing.T) {
	flood := &countingReader{n: 1 << 30} // 1 GiB of 'x', no newline
	var h Hello
	err := ReadLine(bufio.NewReader(flood), &h)
	if !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("ReadLine of 1 GiB without a newline: %v, want ErrLineTooLong", err)
	}
	if read := flood.read; read > MaxLine+4096 {
		t.Fatalf("ReadLine read %d bytes of the flood, want at most %d", read, MaxLine+4096)
	}
	// A line of exactly MaxLine bytes, newline included, is read.
	line := `{"protocol":"` + strings.Repeat("p", MaxLine-len(`{"protocol":""}`)-1) + `"}` + "\n"
	if err := ReadLine(bufio.NewReader(strings.NewReader(line)), &h); err != nil || len(h.Protocol) != MaxLine-len(`{"protocol":""}`)-1 {
		t.Fatalf("a line of MaxLine bytes: %v", err)
	}
	if err := ReadLine(bufio.NewReader(strings.NewReader("x"+line)), &h); !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("a line of MaxLine+1 bytes: %v, want ErrLineTooLong", err)
	}
}

type countingReader struct{ n, read int }

func (r *countingReader) Read(p []byte) (int, error) {
	if r.read >= r.n {
		return 0, io.EOF
	}
	n := min(len(p), r.n-r.read)
	for i := range n {
		p[i] = 'x'
	}
	r.read += n
	return n, nil
}
