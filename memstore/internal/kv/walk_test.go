package kv

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// walkValue is key i's value in the walk's tests: sizes from empty to
// several pages, so trees hold many values a leaf, one, and values
// overflowing their leaf by one page or many.
func walkValue(i, round int) []byte {
	sizes := []int{0, 7, 300, 1500, 4000, 5000, 9000, 30000}
	return bytes.Repeat([]byte{byte(i), byte(round)}, sizes[i%len(sizes)]/2)
}

// lookupsMatchBolt checks, in one read transaction, that Lookup returns
// bbolt's own Get for every key written, for keys between, before and
// after them, and for a nested bucket's name; and that the walk never
// fell back to bbolt.
func lookupsMatchBolt(t *testing.T, db *DB, bucket string, keys []string) {
	t.Helper()
	before := atomic.LoadInt64(&db.tree.fallbacks)
	require.NoError(t, db.View(func(tx *Tx) error {
		get := tx.Lookup(bucket)
		b := tx.bolt.Bucket([]byte(bucket))
		asked := append([]string{"", "\x00", "~~~~", "nested"}, keys...)
		for _, k := range keys {
			asked = append(asked, k+"0", k[:len(k)-1])
		}
		for _, i := range rand.Perm(len(asked)) {
			k := asked[i]
			var want []byte
			if b != nil {
				want = b.Get([]byte(k))
			}
			got := get(k)
			if !bytes.Equal(want, got) || (want == nil) != (got == nil) {
				t.Fatalf("key %q: Lookup gave %d bytes (nil %v), bbolt %d (nil %v)", k, len(got), got == nil, len(want), want == nil)
			}
		}
		return nil
	}))
	assert.Equal(t, before, atomic.LoadInt64(&db.tree.fallbacks), "lookups that fell back to bbolt")
}

// TestWalkedLookupIsBoltGet walks a file's trees as Lookup does (walk.go)
// and compares every answer with bbolt's Get, as the trees grow several
// levels deep, after overwrites and deletions (new versions: the branch
// copies of the older one must not be used), and from a read
// transaction that began before a commit.
func TestWalkedLookupIsBoltGet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := Open(path, time.Second)
	require.NoError(t, err)
	defer db.Close()
	require.NotNil(t, db.tree)

	const n = 6000
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("notes/folder-%02d/a note with a long name %05d.md", i%37, i)
	}
	write := func(round int, which func(i int) bool) {
		require.NoError(t, db.Update(func(tx *Tx) error {
			for i, k := range keys {
				if which(i) {
					if err := tx.PutRaw("bodies", k, walkValue(i, round)); err != nil {
						return err
					}
				}
			}
			_, err := tx.bolt.Bucket([]byte("bodies")).CreateBucketIfNotExists([]byte("nested"))
			return err
		}))
	}
	write(0, func(i int) bool { return true })
	lookupsMatchBolt(t, db, "bodies", keys)
	require.NoError(t, db.View(func(tx *Tx) error {
		depth := tx.bolt.Bucket([]byte("bodies")).Stats().Depth
		assert.GreaterOrEqual(t, depth, 3, "the tree must have branch pages under its root")
		return nil
	}))
	assert.NotEmpty(t, db.tree.branches, "branch pages copied")

	// A reader that began before a commit keeps reading its own version.
	old := make(chan struct{})
	done := make(chan error)
	go func() {
		done <- db.View(func(tx *Tx) error {
			get := tx.Lookup("bodies")
			first := bytes.Clone(get(keys[1]))
			old <- struct{}{}
			<-old
			for i, k := range keys {
				if v := get(k); !bytes.Equal(v, walkValue(i, 0)) {
					return fmt.Errorf("key %q: the older version's reader read %d bytes", k, len(v))
				}
			}
			if !bytes.Equal(first, walkValue(1, 0)) {
				return fmt.Errorf("first read changed")
			}
			return nil
		})
	}()
	<-old
	write(1, func(i int) bool { return i%3 == 0 })
	lookupsMatchBolt(t, db, "bodies", keys) // the new version
	old <- struct{}{}
	require.NoError(t, <-done)

	require.NoError(t, db.Update(func(tx *Tx) error {
		for i, k := range keys {
			if i%2 == 1 {
				if _, err := tx.Delete("bodies", k); err != nil {
					return err
				}
			}
		}
		return nil
	}))
	lookupsMatchBolt(t, db, "bodies", keys)

	// A bucket small enough to lie inside its parent's page (root 0),
	// an empty one and a missing one.
	require.NoError(t, db.Update(func(tx *Tx) error {
		if err := tx.PutRaw("small", "a", []byte("x")); err != nil {
			return err
		}
		_, err := tx.bolt.CreateBucketIfNotExists([]byte("empty"))
		return err
	}))
	lookupsMatchBolt(t, db, "small", []string{"a", "b"})
	lookupsMatchBolt(t, db, "empty", []string{"a"})
	lookupsMatchBolt(t, db, "missing", []string{"a"})
}

// TestWalkedLookupFallsBackToBolt gives the walk a file whose pages are
// not the mapped file's (another file at the same path's place: every
// header disagrees) and a short one: each lookup must notice and
// answer through bbolt, the same values.
func TestWalkedLookupFallsBackToBolt(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(filepath.Join(dir, "state.db"), time.Second)
	require.NoError(t, err)
	defer db.Close()
	keys := make([]string, 2000)
	require.NoError(t, db.Update(func(tx *Tx) error {
		for i := range keys {
			keys[i] = fmt.Sprintf("k%05d", i)
			if err := tx.PutRaw("b", keys[i], walkValue(i, 0)); err != nil {
				return err
			}
		}
		return nil
	}))
	other, err := Open(filepath.Join(dir, "other.db"), time.Second)
	require.NoError(t, err)
	require.NoError(t, other.Update(func(tx *Tx) error {
		for i := range 3000 {
			if err := tx.PutRaw("b", fmt.Sprintf("other%05d", i), walkValue(i+1, 1)); err != nil {
				return err
			}
		}
		return nil
	}))
	require.NoError(t, other.Close())
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.WriteFile(empty, nil, 0o600))

	for _, name := range []string{"other.db", "empty"} {
		f, err := os.Open(filepath.Join(dir, name))
		require.NoError(t, err)
		real := db.tree
		db.tree = &treeFile{f: f, pageSize: real.pageSize}
		require.NoError(t, db.View(func(tx *Tx) error {
			get := tx.Lookup("b")
			for i, k := range keys {
				assert.Equal(t, walkValue(i, 0), get(k), "key %q", k)
			}
			return nil
		}))
		assert.Equal(t, int64(len(keys)), atomic.LoadInt64(&db.tree.fallbacks), name)
		db.tree.close()
		db.tree = real
	}
}

// TestWalkedLookupsKeepFewFilePagesResident looks values up in a random
// order with Lookup, as calls reading bodies do: the leaves it reads
// through the mapping count towards the release as bbolt's lookups did,
// so what stays resident of the file is bounded as before, and the
// branch pages it reads with pread add nothing to it.
func TestWalkedLookupsKeepFewFilePagesResident(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := Open(path, time.Second)
	require.NoError(t, err)
	defer db.Close()
	const n = 100_000
	for start := 0; start < n; start += 10_000 {
		require.NoError(t, db.Update(func(tx *Tx) error {
			for i := start; i < start+10_000; i++ {
				if err := tx.PutRaw("b", fmt.Sprintf("k%07d", i), walkValue(i, 0)); err != nil {
					return err
				}
			}
			return nil
		}))
	}
	require.NoError(t, db.bolt.View(func(btx *bolt.Tx) error { releasePages(btx); return nil }))
	i := 0
	for range 3 * releaseAfter / lookupCost {
		i = (i + 7919) % n
		require.NoError(t, db.View(func(tx *Tx) error {
			if v := tx.Lookup("b")(fmt.Sprintf("k%07d", i)); !bytes.Equal(v, walkValue(i, 0)) {
				t.Fatalf("value %d", i)
			}
			return nil
		}))
	}
	resident := mappedResident(t, path)
	t.Logf("%d random lookups: %d KiB of the file resident, %d KiB of branch pages copied", 3*releaseAfter/lookupCost, resident>>10, db.tree.bytes>>10)
	assert.LessOrEqual(t, resident, releaseAfter+releaseAfter/2, "file pages resident")
	assert.Zero(t, atomic.LoadInt64(&db.tree.fallbacks))
}
