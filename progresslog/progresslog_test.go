package progresslog

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// A long step logs where it stands at a steady pace, even when it stalls.
func TestTickerLogsAtASteadyPace(t *testing.T) {
	var logs lockedBuffer
	p := Start(slog.New(slog.NewTextHandler(&logs, nil)), "reading notes", 100, 10*time.Millisecond)
	p.Add(40)
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(logs.String(), `msg="reading notes" done=40 total=100`) {
		if time.Now().After(deadline) {
			t.Fatalf("no progress line: %q", logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.Finish()
	p.Finish() // idempotent
}
