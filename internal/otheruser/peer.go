package otheruser

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Process is the other user's process a test drives: lines to its stdin
// (In), lines read from its stdout (Line).
type Process struct {
	In  io.WriteCloser
	t   testing.TB
	out *bufio.Scanner
}

// Start runs Command(t, env...) with its stdin and stdout piped; it is
// killed when the test ends. It skips as Command does.
func Start(t testing.TB, env ...string) *Process {
	t.Helper()
	cmd := Command(t, env...)
	in, err := cmd.StdinPipe()
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
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return &Process{In: in, t: t, out: bufio.NewScanner(out)}
}

// Line returns the process's next line; the test fails when it ended.
func (p *Process) Line() string {
	p.t.Helper()
	if !p.out.Scan() {
		p.t.Fatalf("the other user's process ended: %v", p.out.Err())
	}
	return p.out.Text()
}

// peerWait bounds each read of the other user's process from a
// connection.
const peerWait = 10 * time.Second

// DialLine is what the other user's process does to reach a socket: it
// dials the unix socket path, greets it (a Hello), reads what comes back
// until the connection ends (at most peerWait), and returns the line it
// prints for the test: "refused: <error>" or "connected: read N bytes,
// <error>".
func DialLine(path string, greet func(net.Conn) error) string {
	c, err := net.DialTimeout("unix", path, 5*time.Second)
	if err != nil {
		return fmt.Sprint("refused: ", err)
	}
	defer c.Close()
	_ = greet(c)
	_ = c.SetReadDeadline(time.Now().Add(peerWait))
	n, err := io.Copy(io.Discard, c)
	return fmt.Sprintf("connected: read %d bytes, %v", n, err)
}

// Sink is what the other user's sockets got: the connections they
// accepted and the bytes they were sent.
type Sink struct {
	conns, bytes atomic.Int64
	handlers     sync.WaitGroup
}

// Accept counts, on a goroutine of its own, every connection ln accepts
// and the bytes each sends (read for at most peerWait), until ln is
// closed.
func (s *Sink) Accept(ln net.Listener) {
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.conns.Add(1)
			s.handlers.Go(func() {
				defer c.Close()
				_ = c.SetReadDeadline(time.Now().Add(peerWait))
				n, _ := io.Copy(io.Discard, c)
				s.bytes.Add(n)
			})
		}
	}()
}

// Counts waits for the connections accepted so far and returns the counts.
func (s *Sink) Counts() (conns, bytes int64) {
	s.handlers.Wait()
	return s.conns.Load(), s.bytes.Load()
}
