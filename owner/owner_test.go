package owner

import (
	"bufio"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// The socket carries Hello and Welcome, also from a folder whose path is
// too long for a socket file (an abstract socket on Linux).
func TestSocketHello(t *testing.T) {
	for _, dir := range []string{t.TempDir(), filepath.Join(t.TempDir(), strings.Repeat("long-folder-name-", 8))} {
		if !abstractSockets && len(filepath.Join(dir, SocketFile)) > maxSocketPath {
			continue
		}
		ln, err := Listen(dir)
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			var h Hello
			if ReadLine(bufio.NewReader(c), &h) == nil {
				_ = WriteLine(c, Welcome{Protocol: Protocol, PID: h.PID + 1, Detail: h.Kind})
			}
		}()
		c, err := Dial(dir, 5*time.Second)
		if err != nil {
			t.Fatalf("dial %s: %v", Address(dir), err)
		}
		if err := WriteLine(c, Hello{Protocol: Protocol, Kind: KindSync, PID: 41}); err != nil {
			t.Fatal(err)
		}
		var w Welcome
		if err := ReadLine(bufio.NewReader(c), &w); err != nil || w.PID != 42 || w.Detail != KindSync {
			t.Fatalf("welcome %+v, %v", w, err)
		}
		_ = c.Close()
		_ = ln.Close()
	}
}
