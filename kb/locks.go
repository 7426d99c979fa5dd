package kb

import (
	"slices"
	"strings"
	"sync"
)

// pathLocks serialises the writes of the knowledge base tools to each
// note, so that a read, a validation and a compare-and-write happen as
// one step for other callers of the Service. Writers outside the Service
// are caught by the compare-and-write itself (Files.WriteFile's hash).
type pathLocks struct {
	mu    sync.Mutex
	locks map[string]*pathLock
}

type pathLock struct {
	mu    sync.Mutex
	users int
}

// lock takes the locks of paths (compared without letter case, in a fixed
// order so two callers never wait for each other) and returns their
// release.
func (l *pathLocks) lock(paths ...string) func() {
	keys := make([]string, 0, len(paths))
	for _, p := range paths {
		keys = append(keys, strings.ToLower(p))
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	held := make([]*pathLock, len(keys))
	for i, k := range keys {
		l.mu.Lock()
		if l.locks == nil {
			l.locks = map[string]*pathLock{}
		}
		pl := l.locks[k]
		if pl == nil {
			pl = &pathLock{}
			l.locks[k] = pl
		}
		pl.users++
		l.mu.Unlock()
		pl.mu.Lock()
		held[i] = pl
	}
	return func() {
		for i := len(keys) - 1; i >= 0; i-- {
			held[i].mu.Unlock()
			l.mu.Lock()
			if held[i].users--; held[i].users == 0 {
				delete(l.locks, keys[i])
			}
			l.mu.Unlock()
		}
	}
}
