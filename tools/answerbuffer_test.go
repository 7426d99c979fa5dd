package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// EncodeAnswer writes what EncodeJSON writes, with or without an answer
// buffer, and a second answer of a call, or one after the release, is a
// copy of its own.
func TestEncodeAnswerIsEncodeJSON(t *testing.T) {
	long := strings.Repeat("x", 5000)
	for _, s := range []string{long, "short", ""} {
		wantText, wantRaw := EncodeJSON(appended{s})
		text, raw := EncodeAnswer(context.Background(), appended{s})
		if text != wantText || string(raw) != string(wantRaw) {
			t.Fatalf("without a buffer: %.40q, want %.40q", text, wantText)
		}
		ctx, release := WithAnswerBuffer(context.Background())
		text, raw = EncodeAnswer(ctx, appended{s})
		if text != wantText || string(raw) != string(wantRaw) || cap(raw) != len(raw) {
			t.Fatalf("with a buffer: %.40q (cap %d), want %.40q", text, cap(raw), wantText)
		}
		second, _ := EncodeAnswer(ctx, appended{"second"})
		release(&mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}, StructuredContent: raw})
		after, _ := EncodeAnswer(ctx, appended{"after"})
		if second != `{"s":"second"` || after != `{"s":"after"` {
			t.Fatalf("second answer %q, answer after the release %q", second, after)
		}
	}
}

// An answer buffer goes back to the pool only with the result written
// that holds it: an answer the transport did not write (a tool still
// running, another result) keeps its bytes however many calls follow.
func TestAnswerBufferKeptUnlessWritten(t *testing.T) {
	keep := strings.Repeat("kept ", 2000)
	ctx, release := WithAnswerBuffer(context.Background())
	text, raw := EncodeAnswer(ctx, appended{keep})
	want := string(raw)
	release(&mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("another result")}})
	for i := range 200 {
		c, r := WithAnswerBuffer(context.Background())
		tx, rw := EncodeAnswer(c, appended{strings.Repeat("y", 10000+i)})
		r(&mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(tx)}, StructuredContent: rw})
	}
	if text != want || string(raw) != want {
		t.Fatal("an answer not written was overwritten after its buffer's release")
	}
}
