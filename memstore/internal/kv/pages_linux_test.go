package kv

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestReadsKeepFewFilePagesResident reads three times releaseAfter through
// the mapping, by scans and by lookups, and checks that the process keeps
// at most about releaseAfter of the file resident, and that every value
// read after a release is still the value written.
func TestReadsKeepFewFilePagesResident(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const valueSize = 64 << 10
	n := 3 * releaseAfter / valueSize
	value := func(i int) []byte { return bytes.Repeat([]byte{byte(i)}, valueSize) }
	for start := 0; start < n; start += 64 {
		err := db.Update(func(tx *Tx) error {
			for i := start; i < min(start+64, n); i++ {
				if err := tx.PutRaw("b", fmt.Sprintf("k%05d", i), value(i)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	check := func(i int, v []byte) {
		if !bytes.Equal(v, value(i)) {
			t.Fatalf("value %d changed after pages were released", i)
		}
	}
	for round := range 2 {
		err := db.View(func(tx *Tx) error {
			i := 0
			return tx.ForEachRaw("b", func(_, v []byte) error {
				check(i, v)
				i++
				return nil
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			_ = db.View(func(tx *Tx) error {
				check(i, tx.GetRaw("b", fmt.Sprintf("k%05d", i)))
				return nil
			})
		}
		resident := mappedResident(t, path)
		t.Logf("round %d: %d MiB of the file read twice, %d KiB resident", round, 2*n*valueSize>>20, resident>>10)
		if resident > releaseAfter+releaseAfter/2 {
			t.Fatalf("%d KiB of the file resident, want at most about releaseAfter (%d KiB)", resident>>10, releaseAfter>>10)
		}
	}
}

// mappedResident is the resident size of this process's mappings of path
// (the Rss lines of /proc/self/smaps).
func mappedResident(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	defer f.Close()
	total, in := 0, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			in = len(fields) >= 6 && fields[len(fields)-1] == path
			continue
		}
		if in && strings.HasPrefix(line, "Rss:") {
			kb, _ := strconv.Atoi(fields[1])
			total += kb << 10
		}
	}
	return total
}

// TestLookupsMapNothing looks values up in a random order, as calls
// reading bodies and a search's rescoring do, with GetRaw, Lookup and
// LookupPrefix: they read with pread (walk.go), so the file's pages stay
// out of the process's resident set, where each lookup through the
// mapping made the kernel's fault-around window resident (64 KiB) until
// the next release. What is left resident is what bbolt itself reads
// through the mapping at each transaction's start: its meta pages and
// the root of its buckets.
func TestLookupsMapNothing(t *testing.T) {
	const n = 100_000
	db, path := filledDB(t, n, func(i int) []byte { return walkValue(i, 0) })
	if err := db.bolt.View(func(btx *bolt.Tx) error { releasePages(btx); return nil }); err != nil {
		t.Fatal(err)
	}
	i := 0
	lookups := 3 * releaseAfter / lookupCost
	for j := range lookups {
		i = (i + 7919) % n
		key, want := fmt.Sprintf("k%07d", i), walkValue(i, 0)
		err := db.View(func(tx *Tx) error {
			var got []byte
			switch j % 3 {
			case 0:
				got = tx.GetRaw("b", key)
			case 1:
				got = tx.Lookup("b")(key)
			default:
				got, want = tx.LookupPrefix("b", 100)(key), want[:min(100, len(want))]
			}
			if !bytes.Equal(got, want) {
				return fmt.Errorf("value %d: read %d bytes, want %d", i, len(got), len(want))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	resident := mappedResident(t, path)
	t.Logf("%d random lookups: %d KiB of the file resident, %d KiB of branch pages copied", lookups, resident>>10, db.tree.bytes>>10)
	if resident > 1<<20 {
		t.Fatalf("%d KiB of the file resident after lookups, want at most 1 MiB (bbolt's meta and root pages)", resident>>10)
	}
	if f := atomic.LoadInt64(&db.tree.fallbacks); f != 0 {
		t.Fatalf("%d lookups fell back to bbolt's cursor", f)
	}
}

// TestWritesKeepFewFilePagesResident rewrites values at random keys in
// many write transactions and reads nothing, as a one-shot sync's
// embedding pass stores vectors while its reads use pread: the pages
// bbolt reads through the mapping to change them must be released as
// they count up, not left resident until some scan.
func TestWritesKeepFewFilePagesResident(t *testing.T) {
	const n = 100_000
	value := bytes.Repeat([]byte("v"), 700)
	db, path := filledDB(t, n, func(int) []byte { return value })
	i := 0
	for range 200 {
		if err := db.Update(func(tx *Tx) error {
			for range 100 {
				i = (i + 7919) % n
				if err := tx.PutRaw("b", fmt.Sprintf("k%07d", i), value); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	resident := mappedResident(t, path)
	t.Logf("20,000 random rewrites: %d KiB of the file resident", resident>>10)
	if resident > releaseAfter+releaseAfter/2 {
		t.Fatalf("%d KiB of the file resident, want at most about releaseAfter (%d KiB)", resident>>10, releaseAfter>>10)
	}
}

// filledDB opens a DB in a temporary folder, closed when the test ends,
// holding n values (value(i) at key "k%07d" of bucket "b"), written in
// transactions of 10,000.
func filledDB(t *testing.T, n int, value func(i int) []byte) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	for start := 0; start < n; start += 10_000 {
		err := db.Update(func(tx *Tx) error {
			for i := start; i < min(start+10_000, n); i++ {
				if err := tx.PutRaw("b", fmt.Sprintf("k%07d", i), value(i)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return db, path
}
