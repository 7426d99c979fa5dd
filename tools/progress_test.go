package tools

import (
	"context"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestProgressWithoutATokenDoesNothing(t *testing.T) {
	p := Progress(context.Background(), mcp.CallToolRequest{})
	if p.Enabled() {
		t.Fatal("enabled without a progress token")
	}
	p.Report(1, 2, "x") // no panic on nil
}

func TestProgressIsThrottledAndIncreasing(t *testing.T) {
	var sent []map[string]any
	clock := time.Unix(0, 0)
	p := &ProgressReporter{token: "tok", now: func() time.Time { return clock }, send: func(m map[string]any) error {
		sent = append(sent, m)
		return nil
	}}
	p.Report(0, 10, "start") // first: sent
	p.Report(1, 10, "")      // 0 ms later: dropped
	clock = clock.Add(150 * time.Millisecond)
	p.Report(1, 10, "one") // sent
	clock = clock.Add(150 * time.Millisecond)
	p.Report(1, 10, "again") // not increasing: dropped
	p.Report(10, 10, "done") // final: sent at once
	if len(sent) != 3 {
		t.Fatalf("sent %v", sent)
	}
	last := sent[2]
	if last["progressToken"] != "tok" || last["progress"] != 10.0 || last["total"] != 10.0 || last["message"] != "done" {
		t.Fatalf("last notification %v", last)
	}
	if _, ok := sent[1]["total"]; !ok {
		t.Fatalf("total missing: %v", sent[1])
	}
}
