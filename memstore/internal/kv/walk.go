package kv

import (
	"bytes"
	"encoding/binary"
	"os"
	"sync"
	"unsafe"

	bolt "go.etcd.io/bbolt"
)

// A read transaction's lookups (Tx.Lookup) walk the B+tree themselves:
// its branch pages from copies on the heap, its leaves through bbolt's
// mapping of the file as before. Through bbolt's cursor, a lookup of a
// random key after a release of the mapped pages (releasePages, every
// 16 MiB counted) faulted in its lowest branch page again as well as its
// leaf, each fault mapping 64 KiB around it: at 100k notes the bodies'
// tree is five levels deep, 1,721 branch pages over 48,010 leaves, so
// the lowest branch level alone is some 1,660 pages a random lookup
// almost never finds mapped. Page faults and the release were most of a
// get_node depth=1 call's time in the handler (docs/BENCHMARKS.md). The
// copies of the branch pages (cut after their last key: ~3.4 MB for the
// bodies of 100k notes) are read once with pread, which maps nothing,
// and kept for the file's version; a lookup then faults in only its leaf.
//
// The walk is bbolt's Cursor.Seek on the file's format (pages of
// db.Info().PageSize: a 16-byte header {id, flags, count, overflow}, then
// count 16-byte elements; a branch element {pos, ksize, child}, a leaf
// element {flags, pos, ksize, vsize}, positions relative to the
// element). It is exact for the reason bbolt's readers are: the pages
// reachable from a read transaction's root are not rewritten while it is
// open (a commit writes only pages freed before the oldest open reader
// began, with pwrite, never through the mapping), so a copy made at a
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
	// leafLevel is, per tree root of that version, the level its leaves
	// are at (bbolt's trees are balanced): a page there is read through
	// the mapping, one above it with pread, so that a branch page read
	// the first time maps nothing (its fault would map 64 KiB of other
	// notes' leaves around it). Only a guess: a leaf read with pread is
	// used as read, a branch found through the mapping copied.
	leafLevel map[uint64]int

	// fallbacks counts the lookups that met something the walk does
	// not read and asked bbolt (for tests: none on a sound file).
	fallbacks int64
}

// maxBranchBytes bounds the branch pages' copies: a larger file's
// lookups read the branch pages that did not fit through the mapping.
const maxBranchBytes = 8 << 20

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

// branch returns the copy of branch page id as of version, or nil.
func (tf *treeFile) branch(version, id uint64) []byte {
	tf.mu.Lock()
	defer tf.mu.Unlock()
	if tf.version != version {
		return nil
	}
	return tf.branches[id]
}

// at makes version the one whose copies are kept, forgetting an older
// one's; it reports false for a version older than the one kept (a read
// transaction that began before a commit: it keeps nothing). tf.mu is
// held.
func (tf *treeFile) at(version uint64) bool {
	if version < tf.version {
		return false
	}
	if version > tf.version || tf.branches == nil {
		tf.version, tf.branches, tf.bytes, tf.leafLevel = version, map[uint64][]byte{}, 0, map[uint64]int{}
	}
	return true
}

// keep keeps a copy of branch page id as of version, up to its last key.
func (tf *treeFile) keep(version, id uint64, page []byte, used int) {
	tf.mu.Lock()
	defer tf.mu.Unlock()
	if tf.at(version) && tf.bytes+used <= maxBranchBytes {
		tf.branches[id] = bytes.Clone(page[:used])
		tf.bytes += used
	}
}

// leavesAt returns the level of the leaves of the tree at root as of
// version, -1 when not known yet.
func (tf *treeFile) leavesAt(version, root uint64) int {
	tf.mu.Lock()
	defer tf.mu.Unlock()
	if l, ok := tf.leafLevel[root]; ok && tf.version == version {
		return l
	}
	return -1
}

func (tf *treeFile) setLeavesAt(version, root uint64, level int) {
	tf.mu.Lock()
	defer tf.mu.Unlock()
	if tf.at(version) {
		tf.leafLevel[root] = level
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
	data    unsafe.Pointer // bbolt's mapping of the file
	pages   uint64         // the file's pages at this version (bbolt's high-water mark)
	leaves  int            // tf.leavesAt(root), looked up once
	buf     []byte         // a page read with pread
}

// get returns the value of key, nil when the bucket does not hold it
// (or holds a nested bucket there), and ok false when the walk met
// something it does not read (the caller then asks bbolt). The value is
// valid until the next get.
func (l *treeLookup) get(key []byte) (value []byte, ok bool) {
	id := l.root
	for level := range maxTreeDepth {
		page, fresh, ok := l.page(id, level)
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
		if level != l.leaves {
			l.leaves = level
			l.tf.setLeavesAt(l.version, l.root, level)
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
		start := pos + ksize
		if vsize < 0 || start+vsize > len(page) {
			return nil, false
		}
		l.tx.read(vsize)
		return page[start : start+vsize : start+vsize], true
	}
	return nil, false
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

// page returns page id, at level of the tree, with its overflow pages:
// the copy of a branch page, or the page through the mapping at the
// leaves' level, or the page read with pread above it (fresh: a branch
// page not copied yet), its header checked to be that page's.
func (l *treeLookup) page(id uint64, level int) (page []byte, fresh, ok bool) {
	if p := l.tf.branch(l.version, id); p != nil {
		return p, false, true
	}
	size := l.tf.pageSize
	if id >= l.pages {
		return nil, false, false
	}
	if level == l.leaves {
		p := unsafe.Slice((*byte)(unsafe.Add(l.data, uintptr(id)*uintptr(size))), size)
		l.tx.read(lookupCost)
		n := 1 + uint64(binary.NativeEndian.Uint32(p[12:]))
		if binary.NativeEndian.Uint64(p) != id || id+n > l.pages {
			return nil, false, false
		}
		p = unsafe.Slice(unsafe.SliceData(p), int(n)*size)
		return p, binary.NativeEndian.Uint16(p[8:]) == branchPageFlag, true
	}
	if cap(l.buf) < size {
		l.buf = make([]byte, size)
	}
	buf := l.buf[:size]
	if n, _ := l.tf.f.ReadAt(buf, int64(id)*int64(size)); n != size || binary.NativeEndian.Uint64(buf) != id {
		return nil, false, false
	}
	if overflow := uint64(binary.NativeEndian.Uint32(buf[12:])); overflow > 0 {
		if id+1+overflow > l.pages {
			return nil, false, false
		}
		total := int(1+overflow) * size
		grown := make([]byte, total)
		copy(grown, buf)
		if n, _ := l.tf.f.ReadAt(grown[size:], int64(id+1)*int64(size)); n != total-size {
			return nil, false, false
		}
		l.buf, buf = grown, grown
	}
	return buf, true, true
}

// mapping is the address of bbolt's mapping of the file, which
// bolt.Info gives as a number: not memory the Go collector manages.
func mapping(info *bolt.Info) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&info.Data))
}
