package memstore

import (
	"strings"
	"unsafe"
)

// arena hands out strings copied into shared blocks: a project loaded from
// disk keeps its notes' strings in a few hundred blocks instead of one
// allocation per string (or per note), which is what made a 100k-note
// start slow and its heap expensive to scan. A block stays alive while any
// of its strings does, so a note rewritten after the load leaves its old
// bytes in the block: bounded by the size of the load, and gone at the
// next start.
type arena struct {
	buf   []byte
	block int
}

// arenaBlock is the size of a load's blocks.
const arenaBlock = 256 << 10

// str returns a string with b's bytes, "" for none.
func (a *arena) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if cap(a.buf)-len(a.buf) < len(b) {
		a.buf = make([]byte, 0, max(a.block, arenaBlock/64, len(b)))
	}
	start := len(a.buf)
	a.buf = append(a.buf, b...)
	return unsafe.String(&a.buf[start], len(b)) // the bytes are never written again
}

// string is str for a string.
func (a *arena) string(s string) string {
	return a.str(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// newArena returns an arena for a load (large blocks) or, with size, for
// one note's strings (one block of that size).
func newArena(size int) *arena {
	if size <= 0 {
		return &arena{block: arenaBlock}
	}
	return &arena{buf: make([]byte, 0, size)}
}

// windowKey returns key as a window into target's ID when it is a suffix
// of the ID without its extension (a note's keys are the folder suffixes
// of its lowercased path): almost every resolved link's key is.
func windowKey(key string, target *node) (string, bool) {
	if target == nil {
		return "", key == ""
	}
	stem := strings.TrimSuffix(target.ID, ".md")
	if !strings.HasSuffix(stem, key) {
		return "", false
	}
	return stem[len(stem)-len(key):], true
}
