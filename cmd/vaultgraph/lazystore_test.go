package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
)

func TestLazyStoreOpensOnceTheStoreAnswers(t *testing.T) {
	ctx := context.Background()
	var reachable atomic.Bool
	var opens atomic.Int32
	open := func(context.Context) (core.Store, error) {
		opens.Add(1)
		if !reachable.Load() {
			return nil, errors.New("connection refused")
		}
		return memstore.New(), nil
	}
	l := newLazyStore(open, core.NewProviderError("connect", errors.New("connection refused")), slog.New(slog.NewTextHandler(io.Discard, nil)))
	l.lastTry = time.Time{} // due for a retry

	if _, err := l.CountNotes(ctx, "p"); !core.IsProviderError(err) {
		t.Fatalf("while unreachable: %v, want a provider error", err)
	}
	// Within the retry interval calls fail at once, without trying.
	if err := l.UpsertNotes(ctx, "p", nil); !core.IsProviderError(err) || opens.Load() != 1 {
		t.Fatalf("second call: %v after %d opens, want the last provider error and no new attempt", err, opens.Load())
	}
	reachable.Store(true)
	l.mu.Lock()
	l.lastTry = time.Time{}
	l.mu.Unlock()
	if err := l.UpsertNotes(ctx, "p", []core.Note{{Project: "p", ID: "a.md", Title: "A", Path: "a.md", Hash: "h"}}); err != nil {
		t.Fatalf("once reachable: %v", err)
	}
	if n, err := l.CountNotes(ctx, "p"); err != nil || n != 1 {
		t.Fatalf("count after opening: %d, %v", n, err)
	}
	if opens.Load() != 2 {
		t.Errorf("%d opens, want 2", opens.Load())
	}
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
}
