package core

import (
	"context"
	"fmt"
	"sync"
)

// MaxCallWarnings caps the warnings one answer carries: they are about
// what the call touched (a note written with a broken link, a frontmatter
// error), for the model; the vault's whole lint is for the person
// (`vaultgraph check`).
const MaxCallWarnings = 20

// CallWarnings collects the non-fatal problems of one tool call: spec
// 000's "_warnings". Each call has its own, carried by its context, so
// over HTTP one client never sees another's. It is safe for concurrent
// use.
type CallWarnings struct {
	mu      sync.Mutex
	list    []string
	seen    map[string]bool
	dropped int
}

type callWarningsKey struct{}

// WithCallWarnings returns a context carrying a new collector for one call.
func WithCallWarnings(ctx context.Context) (context.Context, *CallWarnings) {
	w := &CallWarnings{seen: map[string]bool{}}
	return context.WithValue(ctx, callWarningsKey{}, w), w
}

// CallWarningsOf returns the collector ctx carries, nil when it carries
// none; List on nil is nil.
func CallWarningsOf(ctx context.Context) *CallWarnings {
	w, _ := ctx.Value(callWarningsKey{}).(*CallWarnings)
	return w
}

// AddCallWarnings adds msgs to the collector ctx carries, if any: work
// done outside a tool call (the watcher, a sync) has none, and its
// problems go to the log and the vault's lint instead.
func AddCallWarnings(ctx context.Context, msgs ...string) {
	w := CallWarningsOf(ctx)
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, m := range msgs {
		switch {
		case w.seen[m]:
		case len(w.list) >= MaxCallWarnings:
			w.dropped++
		default:
			w.seen[m] = true
			w.list = append(w.list, m)
		}
	}
}

// List returns the warnings in the order they came, with a last line
// saying how many more there were past MaxCallWarnings; nil when none.
func (w *CallWarnings) List() []string {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	out := append([]string(nil), w.list...)
	if w.dropped > 0 {
		out = append(out, fmt.Sprintf("%d more warnings not shown (vaultgraph check lists every problem of the vault)", w.dropped))
	}
	return out
}
