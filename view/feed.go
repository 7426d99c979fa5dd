package view

import (
	"context"
	"sync"

	"github.com/vaultgraph/vaultgraph/core"
)

// maxPending is how many changed notes a Feed collects before it gives
// up on the list and asks for a full reload (a first sync, a vault
// replaced wholesale): past that, reading the notes again costs less than
// following each one.
const maxPending = 5000

// Feed collects the IDs of the notes written or deleted through the store
// it wraps (Store), for a View to follow. It is made before the vault
// mirror, which writes through the wrapped store; the View reads it once
// it runs.
type Feed struct {
	mu       sync.Mutex
	written  map[string]bool
	deleted  map[string]bool
	overflow bool
	logged   bool // changes were logged (Logged) since the last take
	wake     chan struct{}
}

// NewFeed returns an empty Feed.
func NewFeed() *Feed {
	return &Feed{written: map[string]bool{}, deleted: map[string]bool{}, wake: make(chan struct{}, 1)}
}

// Store returns s, telling f of every note it writes or deletes after the
// write succeeded. The result is a core.StagedWriter when s is one.
func (f *Feed) Store(s core.GraphStore) core.GraphStore {
	return core.ObserveWrites(s, feedObserver{f})
}

// feedObserver is how a Feed hears of the store's writes.
type feedObserver struct{ f *Feed }

func (feedObserver) BeforeWrite(context.Context, core.GraphStore, string) {}

func (o feedObserver) NotesWritten(ids []string, deleted bool) { o.f.record(ids, deleted) }

func (f *Feed) record(ids []string, deleted bool) {
	f.mu.Lock()
	for _, id := range ids {
		if f.overflow {
			break
		}
		if deleted {
			delete(f.written, id)
			f.deleted[id] = true
		} else {
			delete(f.deleted, id)
			f.written[id] = true
		}
		if len(f.written)+len(f.deleted) > maxPending {
			f.overflow = true
			clear(f.written)
			clear(f.deleted)
		}
	}
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// Logged tells the View that changes were written to the change log
// (recent_changes'), which its pages show with who made them.
func (f *Feed) Logged() {
	f.mu.Lock()
	f.logged = true
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// takeLogged returns and forgets whether changes were logged.
func (f *Feed) takeLogged() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := f.logged
	f.logged = false
	return l
}

// take returns and forgets what was recorded; overflow means "too much:
// read everything again".
func (f *Feed) take() (written, deleted []string, overflow bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for id := range f.written {
		written = append(written, id)
	}
	for id := range f.deleted {
		deleted = append(deleted, id)
	}
	overflow = f.overflow
	clear(f.written)
	clear(f.deleted)
	f.overflow = false
	return written, deleted, overflow
}

// Changed records notes written (or deleted) by another process
// (core.ChangeFollower: a replica on the same Neo4j, a sync worker), whose
// writes do not pass through Store.
func (f *Feed) Changed(ids []string, deleted bool) { f.record(ids, deleted) }

// ChangedUnknown asks the View to read every note again: another process
// wrote more than can be followed note by note.
func (f *Feed) ChangedUnknown() {
	f.mu.Lock()
	f.overflow = true
	clear(f.written)
	clear(f.deleted)
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
}
