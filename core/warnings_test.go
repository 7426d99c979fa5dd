package core

import (
	"context"
	"testing"
)

func TestCallWarnings(t *testing.T) {
	AddCallWarnings(context.Background(), "dropped: no collector") // must not panic
	ctx, w := WithCallWarnings(context.Background())
	AddCallWarnings(ctx, "a", "b", "a")
	if got := w.List(); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Fatalf("List = %v", got)
	}
	_, empty := WithCallWarnings(context.Background())
	if got := empty.List(); len(got) != 0 {
		t.Fatalf("empty List = %v", got)
	}
}
