// Package kv is memstore's durable key-value layer: named buckets (one per
// kind of record: projects, and later memories, relations, document chunks,
// embedding cache) of JSON values, written in transactions.
//
// A DB is either a bbolt file, which fsyncs every committed transaction and
// holds an exclusive file lock while open, or a purely in-memory map with
// the same transactional behaviour, for tests and throwaway stores.
package kv

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// SchemaVersion is the layout version this code writes. Open refuses a file
// written with a newer one rather than misread it.
const SchemaVersion = 1

const (
	metaBucket       = "meta"
	schemaVersionKey = "schema_version"
)

// initialMmapSize is bbolt's first mapping of the file (see Open).
const initialMmapSize = 1 << 30

// ErrLocked reports that another process (or another DB in this process)
// holds the file's lock.
var ErrLocked = errors.New("locked by another process")

// ErrNewerSchema reports a file written by a newer version of this layer.
var ErrNewerSchema = errors.New("written by a newer version")

// DB is a transactional store of JSON values in named buckets.
type DB struct {
	bolt *bolt.DB  // nil for an in-memory DB
	tree *treeFile // the lookups' walk of the file (walk.go); nil in memory

	// read counts the bytes read through the file's mapping since its
	// pages were last released (see Tx.read).
	read atomic.Int64

	// own is the file's version as this DB last left it: found at open,
	// then that of each of its own commits. A commit whose previous
	// version is not own follows a commit of another opener (Tx.Own).
	own atomic.Uint64

	mu  sync.RWMutex // in-memory only: one writer, many readers
	mem map[string]map[string][]byte
}

// Open opens (creating it if needed) the bbolt file at path. It waits at
// most lockTimeout for the file lock and then fails with ErrLocked, so a
// second process never hangs on a state directory in use.
func Open(path string, lockTimeout time.Duration) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("kv: create directory of %s: %w", path, err)
	}
	// The hashmap freelist finds free pages in constant time; the default
	// array is linear in the file's free pages, which a store of note
	// bodies (hundreds of MB, rewritten as notes change) accumulates.
	//
	// The initial mapping is 1 GiB of address space (not memory: pages
	// count only once read). bbolt remaps when the file outgrows the
	// mapping, and a remap copies every node the open write transaction
	// holds (bodies included) onto the heap: a first sync of 10k notes
	// copied 110 MB that way, growing the file step by step.
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: lockTimeout, FreelistType: bolt.FreelistMapType, InitialMmapSize: initialMmapSize})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("kv: open %s: %w (waited %s)", path, ErrLocked, lockTimeout)
	}
	if err != nil {
		return nil, fmt.Errorf("kv: open %s: %w", path, err)
	}
	db := &DB{bolt: b, tree: openTreeFile(path, b)}
	if err := db.checkSchema(); err != nil {
		db.tree.close()
		_ = b.Close()
		return nil, fmt.Errorf("kv: open %s: %w", path, err)
	}
	_ = db.View(func(tx *Tx) error { // cannot fail on an open file
		db.own.Store(tx.Version())
		return nil
	})
	return db, nil
}

// NewMemory returns an empty in-memory DB; nothing survives the process.
func NewMemory() *DB {
	db := &DB{mem: map[string]map[string][]byte{}}
	_ = db.checkSchema() // cannot fail on an empty map
	return db
}

// checkSchema stamps a new file with SchemaVersion and refuses newer ones.
func (db *DB) checkSchema() error {
	// Read first: a file already stamped is not written (a commit moves
	// its Version, which a store compares to know nothing was written).
	stamped := false
	err := db.View(func(tx *Tx) error {
		var err error
		stamped, err = tx.schemaStamped()
		return err
	})
	if err != nil || stamped {
		return err
	}
	return db.Update(func(tx *Tx) error {
		found, err := tx.schemaStamped()
		if err != nil || found {
			return err
		}
		return tx.Put(metaBucket, schemaVersionKey, SchemaVersion)
	})
}

// schemaStamped reports whether the file records its schema version, and
// fails when that version is newer than this build reads.
func (tx *Tx) schemaStamped() (bool, error) {
	var v int
	found, err := tx.Get(metaBucket, schemaVersionKey, &v)
	if err != nil {
		return false, err
	}
	if found && v > SchemaVersion {
		return false, fmt.Errorf("schema version %d: %w (this build reads up to %d)", v, ErrNewerSchema, SchemaVersion)
	}
	return found, nil
}

// Close releases the file and its lock. Using the DB afterwards fails.
func (db *DB) Close() error {
	if db.bolt == nil {
		return nil
	}
	db.tree.close()
	if err := db.bolt.Close(); err != nil {
		return fmt.Errorf("kv: close: %w", err)
	}
	return nil
}

// Update runs fn in a read-write transaction: committed (and, on file,
// fsynced) when fn returns nil, rolled back entirely when it returns an
// error, which Update returns.
func (db *DB) Update(fn func(tx *Tx) error) error {
	if db.bolt != nil {
		var version uint64
		err := db.bolt.Update(func(btx *bolt.Tx) error {
			version = uint64(btx.ID())
			tx := &Tx{bolt: btx, db: db, writable: true}
			err := fn(tx)
			// Each node bbolt made of a page to change it read that
			// page through the mapping, with the kernel's fault-around.
			stats := btx.Stats()
			tx.read(int(stats.GetNodeCount()) * lookupCost)
			return err
		})
		if err == nil {
			db.own.Store(version)
		}
		if db.read.Load() >= releaseAfter {
			// Read transactions no longer count (their lookups read with
			// pread), so writes that counted this far release now: a
			// one-shot sync's embedding pass writes vectors and reads
			// only with pread (+35 MiB of file pages at 100k without).
			_ = db.View(func(*Tx) error { return nil })
		}
		return err
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	tx := &Tx{mem: db.mem, writable: true}
	if err := fn(tx); err != nil {
		tx.rollback()
		return err
	}
	return nil
}

// View runs fn in a read-only transaction that sees one consistent state.
func (db *DB) View(fn func(tx *Tx) error) error {
	if db.bolt != nil {
		return db.bolt.View(func(btx *bolt.Tx) error {
			tx := &Tx{bolt: btx, db: db}
			defer db.tree.recycle(tx)
			err := fn(tx)
			if tx.mapped >= releaseAtEnd || db.read.Load() >= releaseAfter {
				// A scan (a start's load of every record, a count):
				// what it mapped is not read again soon; or writes
				// counted to releaseAfter since the last release.
				db.read.Store(0)
				releasePages(btx)
			}
			return err
		})
	}
	db.mu.RLock()
	defer db.mu.RUnlock()
	return fn(&Tx{mem: db.mem})
}

// Tx is one transaction; it is valid only inside the function it is passed to.
type Tx struct {
	bolt     *bolt.Tx
	db       *DB // with bolt
	mem      map[string]map[string][]byte
	writable bool
	undo     []undoEntry // in-memory writes to revert on rollback
	// buffers are the pooled buffers this read transaction's lookups
	// read values into (walk.go), given back when it ends.
	buffers []*[]byte
	// mapped counts the bytes this transaction read through the mapping
	// (see Tx.read).
	mapped int
}

type undoEntry struct {
	bucket, key string
	old         []byte
	existed     bool
}

// ErrReadOnly reports a write in a View transaction.
var ErrReadOnly = errors.New("write in a read-only transaction")

// Put stores v as JSON under key in bucket, creating the bucket if needed.
func (tx *Tx) Put(bucket, key string, v any) error {
	if !tx.writable {
		return fmt.Errorf("kv: put %s/%s: %w", bucket, key, ErrReadOnly)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("kv: encode %s/%s: %w", bucket, key, err)
	}
	if tx.bolt != nil {
		b, err := tx.bolt.CreateBucketIfNotExists([]byte(bucket))
		if err != nil {
			return fmt.Errorf("kv: bucket %s: %w", bucket, err)
		}
		if err := b.Put([]byte(key), data); err != nil {
			return fmt.Errorf("kv: put %s/%s: %w", bucket, key, err)
		}
		return nil
	}
	b := tx.mem[bucket]
	if b == nil {
		b = map[string][]byte{}
		tx.mem[bucket] = b
	}
	old, existed := b[key]
	tx.undo = append(tx.undo, undoEntry{bucket: bucket, key: key, old: old, existed: existed})
	b[key] = data
	return nil
}

// PutRaw stores value as it is under key in bucket, creating the bucket if
// needed. value must not change until the transaction ends.
func (tx *Tx) PutRaw(bucket, key string, value []byte) error {
	if !tx.writable {
		return fmt.Errorf("kv: put %s/%s: %w", bucket, key, ErrReadOnly)
	}
	if tx.bolt != nil {
		b, err := tx.bolt.CreateBucketIfNotExists([]byte(bucket))
		if err != nil {
			return fmt.Errorf("kv: bucket %s: %w", bucket, err)
		}
		if err := b.Put([]byte(key), value); err != nil {
			return fmt.Errorf("kv: put %s/%s: %w", bucket, key, err)
		}
		return nil
	}
	b := tx.mem[bucket]
	if b == nil {
		b = map[string][]byte{}
		tx.mem[bucket] = b
	}
	old, existed := b[key]
	tx.undo = append(tx.undo, undoEntry{bucket: bucket, key: key, old: old, existed: existed})
	b[key] = slices.Clone(value)
	return nil
}

// GetRaw returns the value under key in bucket, nil when missing. It is
// valid only during the transaction and must not be changed.
func (tx *Tx) GetRaw(bucket, key string) []byte { return tx.raw(bucket, key) }

// Lookup returns a function that looks up keys of bucket as GetRaw does,
// all with one cursor. A read of many keys in one transaction (a get_node
// depth=1 answer reads twenty bodies) then opens no bucket handle and
// makes no cursor or copy of the key for each, which were most of what
// it allocated. Call the function during the transaction only; a value
// it returns is valid until its next call (in a read transaction it may
// lie in a buffer the function reuses, see walk.go).
func (tx *Tx) Lookup(bucket string) func(key string) []byte { return tx.LookupPrefix(bucket, -1) }

// LookupPrefix is Lookup for the first n bytes of each value at most (a
// shorter value whole); n < 0 means whole values. A read of a value's head
// (a neighbour's first characters) then reads from the file only that
// much of a note of hundreds of kilobytes.
func (tx *Tx) LookupPrefix(bucket string, n int) func(key string) []byte {
	cut := func(v []byte) []byte {
		if n >= 0 && len(v) > n {
			return v[:n:n]
		}
		return v
	}
	if tx.bolt == nil {
		return func(key string) []byte { return cut(tx.mem[bucket][key]) }
	}
	b := tx.bolt.Bucket(viewBytes(bucket))
	if b == nil {
		return func(string) []byte { return nil }
	}
	var c *bolt.Cursor
	seek := func(key string) []byte {
		if c == nil {
			c = b.Cursor()
		}
		k, v := c.Seek(viewBytes(key))
		tx.read(lookupCost + len(v))
		if string(k) != key {
			return nil
		}
		return cut(v) // nil for a nested bucket, as Get
	}
	// A read transaction walks the tree itself (walk.go). A write
	// transaction's pages may be dirty in memory, and an inline bucket
	// (root 0) lies inside its parent's page: both through bbolt.
	root := uint64(b.Root())
	if tx.writable || tx.db.tree == nil || root == 0 {
		return seek
	}
	l := &treeLookup{tx: tx, tf: tx.db.tree, version: tx.Version(), root: root, limit: n,
		pages: uint64(tx.bolt.Size()) / uint64(tx.db.tree.pageSize)}
	return func(key string) []byte {
		if v, ok := l.get(viewBytes(key)); ok {
			return v
		}
		atomic.AddInt64(&tx.db.tree.fallbacks, 1)
		return seek(key)
	}
}

// viewBytes is s as bytes without a copy, for bbolt's lookups, which only
// compare the bytes of a key or a bucket name they are given (a name
// kept is copied).
func viewBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// HasBucket reports whether bucket exists (was ever written to).
func (tx *Tx) HasBucket(bucket string) bool {
	if tx.bolt != nil {
		return tx.bolt.Bucket([]byte(bucket)) != nil
	}
	_, ok := tx.mem[bucket]
	return ok
}

// DeleteBucket removes bucket and everything in it; a missing bucket is no
// error.
func (tx *Tx) DeleteBucket(bucket string) error {
	if !tx.writable {
		return fmt.Errorf("kv: delete bucket %s: %w", bucket, ErrReadOnly)
	}
	if tx.bolt != nil {
		err := tx.bolt.DeleteBucket([]byte(bucket))
		if err != nil && !errors.Is(err, bolterrors.ErrBucketNotFound) {
			return fmt.Errorf("kv: delete bucket %s: %w", bucket, err)
		}
		return nil
	}
	for k, v := range tx.mem[bucket] {
		tx.undo = append(tx.undo, undoEntry{bucket: bucket, key: k, old: v, existed: true})
	}
	delete(tx.mem, bucket)
	return nil
}

// Get decodes the value under key in bucket into v and reports whether it
// exists; a missing bucket is like a missing key.
func (tx *Tx) Get(bucket, key string, v any) (bool, error) {
	data := tx.raw(bucket, key)
	if data == nil {
		return false, nil
	}
	if err := json.Unmarshal(data, v); err != nil {
		return true, fmt.Errorf("kv: decode %s/%s: %w", bucket, key, err)
	}
	return true, nil
}

func (tx *Tx) raw(bucket, key string) []byte {
	if tx.bolt != nil {
		if !tx.writable && tx.db.tree != nil {
			// Through the walk, which maps nothing (walk.go); its buffers
			// are this lookup's alone, valid during the transaction.
			return tx.Lookup(bucket)(key)
		}
		b := tx.bolt.Bucket([]byte(bucket))
		if b == nil {
			return nil
		}
		v := b.Get([]byte(key))
		tx.read(lookupCost + len(v))
		return v
	}
	return tx.mem[bucket][key]
}

// Delete removes key from bucket and reports whether it existed.
func (tx *Tx) Delete(bucket, key string) (bool, error) {
	if !tx.writable {
		return false, fmt.Errorf("kv: delete %s/%s: %w", bucket, key, ErrReadOnly)
	}
	if tx.raw(bucket, key) == nil {
		return false, nil
	}
	if tx.bolt != nil {
		if err := tx.bolt.Bucket([]byte(bucket)).Delete([]byte(key)); err != nil {
			return false, fmt.Errorf("kv: delete %s/%s: %w", bucket, key, err)
		}
		return true, nil
	}
	tx.undo = append(tx.undo, undoEntry{bucket: bucket, key: key, old: tx.mem[bucket][key], existed: true})
	delete(tx.mem[bucket], key)
	return true, nil
}

// ForEach calls fn with every key and raw JSON value of bucket in key
// order, stopping at fn's first error. The value is valid only during the
// call.
func (tx *Tx) ForEach(bucket string, fn func(key string, value []byte) error) error {
	if tx.bolt != nil {
		b := tx.bolt.Bucket([]byte(bucket))
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			tx.read(len(k) + len(v))
			return fn(string(k), v)
		})
	}
	b := tx.mem[bucket]
	keys := make([]string, 0, len(b))
	for k := range b {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := fn(k, b[k]); err != nil {
			return err
		}
	}
	return nil
}

// ForEachRaw is ForEach with the key as bytes, valid only during the call
// too: no string per key when the caller keeps none.
func (tx *Tx) ForEachRaw(bucket string, fn func(key, value []byte) error) error {
	if tx.bolt != nil {
		b := tx.bolt.Bucket([]byte(bucket))
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			tx.read(len(k) + len(v))
			return fn(k, v)
		})
	}
	return tx.ForEach(bucket, func(key string, value []byte) error { return fn([]byte(key), value) })
}

// ForEachFrom is ForEach starting at the first key not before from, and
// ErrStop ending the walk without an error.
func (tx *Tx) ForEachFrom(bucket, from string, fn func(key string, value []byte) error) error {
	return tx.ForEachFromRaw(bucket, from, func(key, value []byte) error { return fn(string(key), value) })
}

// ForEachFromRaw is ForEachFrom with the key as bytes, valid only during
// the call: no string per key when the caller keeps none.
func (tx *Tx) ForEachFromRaw(bucket, from string, fn func(key, value []byte) error) error {
	var err error
	if tx.bolt != nil {
		b := tx.bolt.Bucket([]byte(bucket))
		if b == nil {
			return nil
		}
		c := b.Cursor()
		tx.read(lookupCost) // the seek
		for k, v := c.Seek([]byte(from)); k != nil && err == nil; k, v = c.Next() {
			tx.read(len(k) + len(v))
			err = fn(k, v)
		}
	} else {
		err = tx.ForEach(bucket, func(key string, value []byte) error {
			if key < from {
				return nil
			}
			return fn([]byte(key), value)
		})
	}
	if errors.Is(err, ErrStop) {
		return nil
	}
	return err
}

// ForEachBefore calls fn with every key of bucket below before (every key
// when before is ""), the greatest first, and its value, which is valid
// only during the call. It stops at fn's first error, which it returns,
// except ErrStop, which just ends the walk.
func (tx *Tx) ForEachBefore(bucket, before string, fn func(key string, value []byte) error) error {
	if tx.bolt != nil {
		b := tx.bolt.Bucket([]byte(bucket))
		if b == nil {
			return nil
		}
		c := b.Cursor()
		tx.read(lookupCost) // the seek
		var k, v []byte
		if before != "" {
			k, _ = c.Seek([]byte(before))
		}
		if k == nil { // no before, or every key is below it
			k, v = c.Last()
		} else {
			k, v = c.Prev()
		}
		for ; k != nil; k, v = c.Prev() {
			tx.read(len(k) + len(v))
			if err := fn(string(k), v); err != nil {
				return stopped(err)
			}
		}
		return nil
	}
	b := tx.mem[bucket]
	keys := make([]string, 0, len(b))
	for k := range b {
		if before == "" || k < before {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for i := len(keys) - 1; i >= 0; i-- {
		if err := fn(keys[i], b[keys[i]]); err != nil {
			return stopped(err)
		}
	}
	return nil
}

// releaseAfter is how many bytes a process reads through the file's
// mapping before it releases the pages it touched (releasePages): a start
// that reads every note record, or calls reading bodies one by one, then
// keep about this much of the file resident instead of all of it (its
// resident set grew towards the file's size: gigabytes at 100k notes).
// Released pages stay in the page cache, so reading them again costs a
// minor fault, not a disk read.
const releaseAfter = 16 << 20

// releaseAtEnd is how many bytes a read transaction reads through the
// mapping from which its end releases the mapped pages too. Lookups read
// with pread (walk.go); what reads through the mapping are scans, mostly
// a start's loads of every record, and their last pages stayed resident
// until some later read counted to releaseAfter: after a 100k start,
// ~19 MiB of the file for as long as serve ran (docs/BENCHMARKS.md).
const releaseAtEnd = 1 << 20

// lookupCost is what one lookup through the mapping (a write
// transaction's Get or cursor Seek, a page bbolt reads to change it) is
// counted as having made resident besides its value: not the one leaf page it reads,
// but the kernel's fault-around window, 64 KiB on Linux
// (fault_around_bytes; bbolt's MADV_RANDOM does not turn it off), plus the
// branch pages on the way. Counted as a page, 16 MiB of lookups left
// ~150-200 MB of the file resident at 100k notes (63 KiB measured per
// random lookup of a note record); counted so, about releaseAfter.
const lookupCost = 64 << 10

// read counts n bytes read through the mapping, and releases the mapped
// pages once releaseAfter bytes were read since the last release. A write
// transaction only counts (the next read transaction releases): its
// commit may remap the file.
func (tx *Tx) read(n int) {
	tx.mapped += n
	if tx.db == nil || tx.db.read.Add(int64(n)) < releaseAfter || tx.writable {
		return
	}
	tx.db.read.Store(0)
	releasePages(tx.bolt)
}

// Version identifies the state of the file this transaction reads: every
// write transaction committed moves it (bbolt's transaction ID). An
// in-memory DB has none: 0.
func (tx *Tx) Version() uint64 {
	if tx.bolt == nil {
		return 0
	}
	return uint64(tx.bolt.ID())
}

// Own is the file's version as this DB last left it (at its open, or
// after its last commit): in a write transaction, Version()-1 == Own()
// says no other opener committed since. bbolt's file lock keeps other
// processes out while the DB is open, so this holds unless the file was
// written by a process that did not take the lock; a store that vouches
// for what it wrote checks it anyway, since it costs nothing. 0 in
// memory.
func (tx *Tx) Own() uint64 {
	if tx.db == nil {
		return 0
	}
	return tx.db.own.Load()
}

// Reread counts n bytes read again, through the mapping, of values a walk
// of this transaction gave earlier (a load walks the records, then decodes
// them): they touch pages again, which the next release lets go.
func (tx *Tx) Reread(n int) { tx.read(n) }

// ErrStop ends a ForEachBefore early without an error.
var ErrStop = errors.New("kv: stop")

func stopped(err error) error {
	if errors.Is(err, ErrStop) {
		return nil
	}
	return err
}

// All decodes every value of bucket, in key order.
func All[T any](tx *Tx, bucket string) ([]T, error) {
	var out []T
	err := tx.ForEach(bucket, func(key string, value []byte) error {
		var v T
		if err := json.Unmarshal(value, &v); err != nil {
			return fmt.Errorf("kv: decode %s/%s: %w", bucket, key, err)
		}
		out = append(out, v)
		return nil
	})
	return out, err
}

func (tx *Tx) rollback() {
	for i := len(tx.undo) - 1; i >= 0; i-- {
		u := tx.undo[i]
		if u.existed {
			if tx.mem[u.bucket] == nil { // the bucket was deleted
				tx.mem[u.bucket] = map[string][]byte{}
			}
			tx.mem[u.bucket][u.key] = u.old
		} else {
			delete(tx.mem[u.bucket], u.key)
		}
	}
}
