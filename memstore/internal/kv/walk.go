package kv

import (
	"bytes"
	"encoding/binary"
	"os"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// A read transaction's lookups (Tx.Lookup, Tx.GetRaw) walk the B+tree
// themselves and read the file with pread: its branch pages from copies
// on the heap, read once and kept for the file's version (~3.4 MB for the
// bodies of 100k notes), its leaves and values into pooled buffers. So a
// lookup maps nothing. Through bbolt's mapping, a random lookup faulted in
// its leaf and the kernel mapped 64 KiB around it (fault-around), and
// pages read through the mapping stay in the resident set until released
// (releasePages, every 16 MiB counted): a search's rescoring, reading the
// stored vectors of ~100 candidates, kept 25-50 MB of the file resident at
// 100k notes and was most of what serve's peak held above its heap
// (docs/BENCHMARKS.md). A read of a value's head (Tx.LookupPrefix: a
// neighbour's first characters) reads only its first bytes, where the
// mapping faulted one page of it.
//
// The walk is bbolt's Cursor.Seek on the file's format (pages of
// db.Info().PageSize: a 16-byte header {id, flags, count, overflow}, then
// count 16-byte elements; a branch element {pos, ksize, child}, a leaf
// element {flags, pos, ksize, vsize}, positions relative to the
// element). It is exact for the reason bbolt's readers are: the pages
// reachable from a read transaction's root are not rewritten while it is
// open (a commit writes only pages freed before the oldest open reader
// began, with pwrite, never through the mapping), so a page read at a
// version is that version's page. Anything it does not expect (a page
// whose header is not the page asked for, an unknown flag, a size out of
// bounds, a short read, an inline bucket) makes the lookup ask bbolt's
// cursor instead, which reads the same value or reports the file's state
// as it always did.

// treeFile reads the state file's pages for the lookups; nil on an
// in-memory DB, or when the file could not be opened a second time.
type treeFile struct {
	f        *os.File
	pageSize int

	// branches holds copies of the B+trees' branch pages as of one file
	// version, each cut after its last key, at most maxBranchBytes.
	mu       sync.Mutex
	version  uint64
	branches map[uint64][]byte
	bytes    int

	// buffers holds the read transactions' buffers between them (*[]byte):
	// pages and values read with pread, given back when the transaction
	// ends (recycle, from DB.View), so that a call reading twenty bodies allocates
	// nothing for them.
	buffers sync.Pool

	// fallbacks counts the lookups that met something the walk does
	// not read and asked bbolt (for tests: none on a sound file).
	fallbacks int64
}

// maxBranchBytes bounds the branch pages' copies: a larger file's
// lookups read the branch pages that did not fit with pread each time.
const maxBranchBytes = 8 << 20

// maxPooledBuffer is the largest buffer kept for the next transaction: a
// value larger than this (a note of a megabyte) is read into a buffer of
// its own, left to the collector.
const maxPooledBuffer = 256 << 10

func openTreeFile(path string, b *bolt.DB) *treeFile {
	f, err := os.Open(path)
	if err != nil {
		return nil // lookups go through bbolt's cursor, as before
	}
	return &treeFile{f: f, pageSize: b.Info().PageSize}
}

func (tf *treeFile) close() {
	if tf != nil {
		_ = tf.f.Close()
	}
}

// buffer returns a pooled buffer of at least n bytes, noted in tx so that
// it goes back to the pool when tx ends.
func (tf *treeFile) buffer(tx *Tx, n int) []byte {
	if n > maxPooledBuffer {
		return make([]byte, n)
	}
	bp, _ := tf.buffers.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	if cap(*bp) < n {
		*bp = make([]byte, max(n, tf.pageSize))
	}
	tx.buffers = append(tx.buffers, bp)
	return (*bp)[:n]
}

// recycle gives tx's buffers back to the pool: its values are no longer
// used (they were valid only during the transaction).
func (tf *treeFile) recycle(tx *Tx) {
	for _, bp := range tx.buffers {
		tf.buffers.Put(bp)
	}
	tx.buffers = nil
}

// branch returns the copy of branch page id as of version, or nil.
func (tf *treeFile) branch(version, id uint64) []byte {
	tf.mu.Lock()
	defer tf.mu.Unlock()
	if tf.version != version {
		return nil
	}
	return tf.branches[id]
}

// keep keeps a copy of branch page id as of version, up to its last key,
// forgetting an older version's copies; a read transaction older than the
// version kept (it began before a commit) keeps nothing.
func (tf *treeFile) keep(version, id uint64, page []byte, used int) {
	tf.mu.Lock()
	defer tf.mu.Unlock()
	if version < tf.version {
		return
	}
	if version > tf.version || tf.branches == nil {
		tf.version, tf.branches, tf.bytes = version, map[uint64][]byte{}, 0
	}
	if tf.bytes+used <= maxBranchBytes {
		tf.branches[id] = bytes.Clone(page[:used])
		tf.bytes += used
	}
}

const (
	pageHeaderSize = 16
	elementSize    = 16
	branchPageFlag = 0x01
	leafPageFlag   = 0x02
	bucketLeafFlag = 0x01
	maxTreeDepth   = 64 // far deeper than any tree bbolt writes
)

// treeLookup is one read transaction's lookups of keys in the bucket
// whose tree starts at page root.
type treeLookup struct {
	tx      *Tx
	tf      *treeFile
	version uint64
	root    uint64
	pages   uint64 // the file's pages at this version (bbolt's high-water mark)
	// limit is the most bytes of a value get returns (its head); < 0 for
	// the whole value.
	limit int
	// page and value are the buffers a lookup reads into, reused by the
	// next (see Tx.Lookup); GetRaw's lookups have buffers of their own.
	page, value []byte
}

// get returns the value of key, nil when the bucket does not hold it
// (or holds a nested bucket there), and ok false when the walk met
// something it does not read (the caller then asks bbolt). The value is
// valid until the next get.
func (l *treeLookup) get(key []byte) (value []byte, ok bool) {
	id := l.root
	for range maxTreeDepth {
		page, whole, fresh, ok := l.read(id)
		if !ok {
			return nil, false
		}
		flags := binary.NativeEndian.Uint16(page[8:])
		count := int(binary.NativeEndian.Uint16(page[10:]))
		if flags != branchPageFlag && flags != leafPageFlag {
			return nil, false
		}
		if count == 0 { // an empty bucket's root leaf; no branch is empty
			return nil, flags == leafPageFlag
		}
		branch := flags == branchPageFlag
		i, exact, end, ok := searchPage(page, count, key, branch)
		if !ok && !whole {
			// An element or key lies on the leaf's overflow pages (a
			// leaf of a few elements, one of them large): read them all.
			if page, ok = l.run(id, page); ok {
				i, exact, end, ok = searchPage(page, count, key, branch)
			}
		}
		if !ok {
			return nil, false
		}
		e := pageHeaderSize + i*elementSize
		if branch {
			// The last element whose key is not after key (the first
			// when every key is after it), as bbolt's searchPage.
			if !exact && i > 0 {
				e -= elementSize
			}
			if fresh {
				l.tf.keep(l.version, id, page, end)
			}
			id = binary.NativeEndian.Uint64(page[e+8:])
			continue
		}
		if !exact {
			return nil, true
		}
		if binary.NativeEndian.Uint32(page[e:])&bucketLeafFlag != 0 {
			return nil, true // a nested bucket: nil, as bbolt's Get
		}
		pos := e + int(binary.NativeEndian.Uint32(page[e+4:]))
		ksize := int(binary.NativeEndian.Uint32(page[e+8:]))
		vsize := int(binary.NativeEndian.Uint32(page[e+12:]))
		return l.valueAt(id, page, pos+ksize, vsize)
	}
	return nil, false
}

// valueAt returns the value of vsize bytes at start in leaf page id, of
// which page holds the first bytes, cut to l.limit; what page does not
// hold is read with pread.
func (l *treeLookup) valueAt(id uint64, page []byte, start, vsize int) ([]byte, bool) {
	size := l.tf.pageSize
	overflow := int(binary.NativeEndian.Uint32(page[12:]))
	if vsize < 0 || start < 0 || start+vsize > (1+overflow)*size {
		return nil, false
	}
	n := vsize
	if l.limit >= 0 && l.limit < n {
		n = l.limit
	}
	if start+n <= len(page) {
		return page[start : start+n : start+n], true
	}
	if cap(l.value) < n {
		l.value = l.tf.buffer(l.tx, n)
	}
	buf := l.value[:n]
	if got, _ := l.tf.f.ReadAt(buf, int64(id)*int64(size)+int64(start)); got != n {
		return nil, false
	}
	return buf, true
}

// read returns page id read with pread, or the copy of it as a branch
// page (not fresh). A branch page comes whole, with its overflow pages; a
// leaf's first page only (whole is false when it has overflow pages),
// where its elements begin. Its header is checked to be that page's.
func (l *treeLookup) read(id uint64) (page []byte, whole, fresh, ok bool) {
	if p := l.tf.branch(l.version, id); p != nil {
		return p, true, false, true
	}
	size := l.tf.pageSize
	if id >= l.pages {
		return nil, false, false, false
	}
	if l.page == nil {
		l.page = l.tf.buffer(l.tx, size)
	}
	buf := l.page[:size]
	if n, _ := l.tf.f.ReadAt(buf, int64(id)*int64(size)); n != size || binary.NativeEndian.Uint64(buf) != id {
		return nil, false, false, false
	}
	overflow := uint64(binary.NativeEndian.Uint32(buf[12:]))
	if id+1+overflow > l.pages {
		return nil, false, false, false
	}
	if overflow == 0 {
		return buf, true, true, true
	}
	if binary.NativeEndian.Uint16(buf[8:]) != branchPageFlag {
		return buf, false, true, true
	}
	buf, ok = l.run(id, buf)
	return buf, ok, true, ok
}

// run returns leaf or branch page id with all its overflow pages, of
// which first is the first page, read with pread into l.value.
func (l *treeLookup) run(id uint64, first []byte) ([]byte, bool) {
	size := l.tf.pageSize
	total := int(1+binary.NativeEndian.Uint32(first[12:])) * size
	if cap(l.value) < total {
		l.value = l.tf.buffer(l.tx, total)
	}
	buf := l.value[:total]
	copy(buf, first)
	if n, _ := l.tf.f.ReadAt(buf[size:], int64(id+1)*int64(size)); n != total-size {
		return nil, false
	}
	return buf, true
}

// searchPage finds, among the count elements of a branch or leaf page,
// the first whose key is not before key, and whether it equals key; end
// is where the last element's key ends (what a branch page's copy
// keeps). ok is false when an element points outside the page.
func searchPage(page []byte, count int, key []byte, branch bool) (i int, exact bool, end int, ok bool) {
	keyAt := func(i int) (start, end int, ok bool) {
		e := pageHeaderSize + i*elementSize
		var pos, ksize int
		if branch {
			pos, ksize = int(binary.NativeEndian.Uint32(page[e:])), int(binary.NativeEndian.Uint32(page[e+4:]))
		} else {
			pos, ksize = int(binary.NativeEndian.Uint32(page[e+4:])), int(binary.NativeEndian.Uint32(page[e+8:]))
		}
		start = e + pos
		return start, start + ksize, start+ksize <= len(page)
	}
	if pageHeaderSize+count*elementSize > len(page) {
		return 0, false, 0, false
	}
	if _, end, ok = keyAt(count - 1); !ok {
		return 0, false, 0, false
	}
	lo, hi := 0, count
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		s, e, ok := keyAt(m)
		if !ok {
			return 0, false, 0, false
		}
		switch bytes.Compare(page[s:e], key) {
		case -1:
			lo = m + 1
		case 0:
			exact = true
			hi = m
		default:
			hi = m
		}
	}
	return lo, exact, end, true
}
