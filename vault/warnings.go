package vault

import (
	"fmt"
	"sync"
)

// DefaultMaxWarnings is how many pending warnings a Warnings keeps when
// built with a limit of 0.
const DefaultMaxWarnings = 200

// Warnings collects non-fatal problems (broken links, ignored tags,
// frontmatter errors, a store that is down) from the sync worker and the
// writer until a caller drains them; tools attach them to their next
// response as "_warnings" (spec 000). It is safe for concurrent use.
//
// A message already pending is not added twice, and past the limit new
// messages are counted, not kept, so a vault full of broken links cannot
// flood a response.
type Warnings struct {
	mu      sync.Mutex
	max     int
	list    []string
	pending map[string]struct{}
	dropped int
}

// NewWarnings returns an empty collector keeping at most max messages
// (DefaultMaxWarnings when max <= 0).
func NewWarnings(max int) *Warnings {
	if max <= 0 {
		max = DefaultMaxWarnings
	}
	return &Warnings{max: max, pending: map[string]struct{}{}}
}

// Add records messages.
func (w *Warnings) Add(msgs ...string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, m := range msgs {
		if _, dup := w.pending[m]; dup {
			continue
		}
		if len(w.list) >= w.max {
			w.dropped++
			continue
		}
		w.pending[m] = struct{}{}
		w.list = append(w.list, m)
	}
}

// Drain returns the pending messages in the order they were added and
// clears them. When messages were dropped over the limit, a last line says
// how many. It returns nil when nothing is pending.
func (w *Warnings) Drain() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.list
	if w.dropped > 0 {
		out = append(out, fmt.Sprintf("%d more warnings not shown", w.dropped))
	}
	w.list, w.dropped = nil, 0
	clear(w.pending)
	return out
}

// Len returns how many messages are pending.
func (w *Warnings) Len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.list) + w.dropped
}
