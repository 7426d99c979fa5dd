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
// after them, and for a nested bucket's name; that LookupPrefix returns
// its first bytes, and that GetRaw's values stay what bbolt holds until
// the transaction ends; and that the walk never fell back to bbolt.
func lookupsMatchBolt(t *testing.T, db *DB, bucket string, keys []string) {
	t.Helper()
	before := atomic.LoadInt64(&db.tree.fallbacks)
	require.NoError(t, db.View(func(tx *Tx) error {
		get := tx.Lookup(bucket)
		prefixes := map[int]func(string) []byte{}
		for _, n := range []int{0, 1, 100, 4000, 4096, 5000} {
			prefixes[n] = tx.LookupPrefix(bucket, n)
		}
		b := tx.bolt.Bucket([]byte(bucket))
		asked := append([]string{"", "\x00", "~~~~", "nested"}, keys...)
		for _, k := range keys {
			asked = append(asked, k+"0", k[:len(k)-1])
		}
		kept := map[string][]byte{} // GetRaw's values, checked at the end
		for j, i := range rand.Perm(len(asked)) {
			k := asked[i]
			var want []byte
			if b != nil {
				want = b.Get([]byte(k))
			}
			got := get(k)
			if !bytes.Equal(want, got) || (want == nil) != (got == nil) {
				t.Fatalf("key %q: Lookup gave %d bytes (nil %v), bbolt %d (nil %v)", k, len(got), got == nil, len(want), want == nil)
			}
			for n, prefix := range prefixes {
				got, want := prefix(k), want
				if len(want) > n {
					want = want[:n]
				}
				if !bytes.Equal(want, got) || (want == nil) != (got == nil) {
					t.Fatalf("key %q: LookupPrefix %d gave %d bytes (nil %v), want %d (nil %v)", k, n, len(got), got == nil, len(want), want == nil)
				}
			}
			if j%7 == 0 {
				kept[k] = tx.GetRaw(bucket, k)
			}
		}
		for k, v := range kept {
			var want []byte
			if b != nil {
				want = b.Get([]byte(k))
			}
			if !bytes.Equal(want, v) {
				t.Fatalf("key %q: GetRaw's value changed during the transaction", k)
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

// TestConcurrentLookupsKeepTheirBuffers runs read transactions on several
// goroutines while a writer commits new versions: each transaction's
// values lie in pooled buffers, which must not be handed to another
// transaction before it ends (the values it holds must stay its own).
func TestConcurrentLookupsKeepTheirBuffers(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "state.db"), time.Second)
	require.NoError(t, err)
	defer db.Close()
	const n = 3000
	key := func(i int) string { return fmt.Sprintf("notes/%05d.md", i) }
	put := func(round int) {
		require.NoError(t, db.Update(func(tx *Tx) error {
			for i := range n {
				if err := tx.PutRaw("b", key(i), walkValue(i, round)); err != nil {
					return err
				}
			}
			return nil
		}))
	}
	put(0)
	stop := make(chan struct{})
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		for round := 1; ; round++ {
			select {
			case <-stop:
				return
			default:
				put(round % 2)
			}
		}
	}()
	errs := make(chan error, 8)
	for w := range 8 {
		go func() {
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for range 150 {
				err := db.View(func(tx *Tx) error {
					get := tx.Lookup("b")
					held := map[int][]byte{}
					for range 10 {
						i := r.IntN(n)
						held[i] = tx.GetRaw("b", key(i))
						v := get(key(i))
						if !bytes.Equal(v, held[i]) {
							return fmt.Errorf("key %d: Lookup and GetRaw differ", i)
						}
					}
					for i, v := range held { // one version: round 0 or 1, unchanged
						if !bytes.Equal(v, walkValue(i, 0)) && !bytes.Equal(v, walkValue(i, 1)) {
							return fmt.Errorf("key %d: a held value changed during its transaction", i)
						}
						if !bytes.Equal(v, tx.GetRaw("b", key(i))) {
							return fmt.Errorf("key %d: a held value is not the transaction's", i)
						}
					}
					return nil
				})
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		assert.NoError(t, <-errs)
	}
	close(stop)
	<-writerDone
	assert.Zero(t, atomic.LoadInt64(&db.tree.fallbacks))
}
