package vault

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/memstore"
)

// hiddenStamp is the embedded store with its stamp hidden from a restart
// and none recorded: the restart resolves every stored link again, which
// tells whether the stamp the last sync recorded was true (it must find
// nothing to write), and leaves that stamp in place.
type hiddenStamp struct{ *memstore.Store }

func (hiddenStamp) StatesStamp(context.Context, string) (string, error) { return "", nil }
func (hiddenStamp) StampStates(context.Context, string, string) error   { return nil }

// stampedRun syncs the vault at root into the embedded store in dir with
// change applied to the configuration, and closes the store.
func stampedRun(t *testing.T, root, dir string, hide bool, change ...func(*Config)) (restoreCheck, SyncStats, []string, []LintEntry) {
	t.Helper()
	store, err := memstore.Open(dir)
	require.NoError(t, err)
	defer func() { require.NoError(t, store.Close(context.Background())) }()
	if hide {
		change = append(change, func(c *Config) { c.Stamper = hiddenStamp{store} })
	}
	m := newTestMirror(t, root, store, change...)
	stats, err := m.Sync(t.Context())
	require.NoError(t, err)
	require.Zero(t, m.Pending())
	return m.restore, stats, describe(t, store), m.Lint().All()
}

// checkStampTrue checks that the store in dir is stamped, and truly: a
// restart that resolves every link again finds nothing to write, and the
// restart that trusts the stamp keeps the stored targets, reads no file,
// writes nothing and ends with the store and lint of a first sync of the
// vault into an empty store.
func checkStampTrue(t *testing.T, root, dir, what string, change ...func(*Config)) {
	t.Helper()
	check, stats, got, lint := stampedRun(t, root, dir, true, change...)
	readAnyway := stats.Read
	require.Equal(t, restoreStampable, check, "%s: every stored note restored", what)
	require.Zero(t, stats.Written+stats.Deleted, "%s: the stamp is true (nothing resolves otherwise)", what)

	fresh := memstore.New()
	ref := newTestMirror(t, root, fresh, change...)
	_, err := ref.Sync(t.Context())
	require.NoError(t, err)
	require.Equal(t, describe(t, fresh), got, what)
	require.Equal(t, ref.Lint().All(), lint, what)

	check, stats, got, lint = stampedRun(t, root, dir, false, change...)
	require.Equal(t, restoreStamped, check, "%s: stamped", what)
	require.Zero(t, stats.Written+stats.Deleted, what)
	require.Equal(t, readAnyway, stats.Read, "%s: only the files the store cannot hold are read", what)
	require.Equal(t, describe(t, fresh), got, what)
	require.Equal(t, ref.Lint().All(), lint, what)
}

// A first sync into an empty embedded store stamps it, whether it streams
// the vault in parts (with notes too large to read and notes gone after
// the walk repaired, and links on keys several notes answer to written
// again) or writes it in one staged call: the first restart after it
// keeps the stored targets.
func TestFirstSyncStampsTheStore(t *testing.T) {
	for seed := range uint64(6) {
		for _, mode := range []string{"streamed", "one call"} {
			what := fmt.Sprintf("seed %d %s", seed, mode)
			files := streamVault(seed)
			root := writeVault(t, files)
			ageFiles(t, root)
			small := func(c *Config) { c.MaxFileSize = 4096 }
			dir := t.TempDir()
			batch := func(c *Config) { c.BatchSize, c.StagedBatch = 2, 3+int(seed%4) }
			if mode == "one call" {
				batch = func(c *Config) { c.BatchSize, c.StagedBatch = 2, 0 }
			} else {
				streamHook = func(k int) {
					if k == 1 {
						require.NoError(t, os.Remove(filepath.Join(root, "gone.md")))
						require.NoError(t, os.Remove(filepath.Join(root, "zz/z/gone2.md")))
					}
				}
			}
			_, stats, _, _ := stampedRun(t, root, dir, false, small, batch)
			streamHook = nil
			require.Positive(t, stats.Written, what)
			checkStampTrue(t, root, dir, what, small)
		}
	}
}

// A restart stamps the store once it has written what it found changed
// or stored wrongly, and the stamp is true; a write after the stamp (a
// note added and synced by the same process) withdraws it: the next
// restart resolves every link again, then stamps.
func TestARestartStampsWhatItWrote(t *testing.T) {
	for seed := range uint64(12) {
		r := rand.New(rand.NewPCG(seed, 9))
		root, dir := t.TempDir(), t.TempDir()
		writeRestartVault(t, r, root)
		ageFiles(t, root)
		batch := func(c *Config) { c.BatchSize = 3 }
		stampedRun(t, root, dir, false, batch)
		for round := range 3 {
			what := fmt.Sprintf("seed %d round %d", seed, round)
			// The vault changes while no mirror runs: new, edited,
			// deleted notes, case twins, notes answering to more keys.
			changeAtRandom(t, r, root, 6)
			ageFiles(t, root)
			check, stats, _, _ := stampedRun(t, root, dir, false, batch)
			require.Equal(t, restoreStamped, check, what)
			if stats.Written+stats.Deleted > 0 {
				require.NotZero(t, stats.Read, what)
			}
			checkStampTrue(t, root, dir, what, batch)
		}

		// A note created and synced after the restart stamped: the next
		// restart resolves again, ends as a full sync, stamps.
		store, err := memstore.Open(dir)
		require.NoError(t, err)
		m := newTestMirror(t, root, store, batch)
		_, err = m.Sync(t.Context())
		require.NoError(t, err)
		require.Equal(t, restoreStamped, m.restore)
		writeFile(t, root, "y/fresh.md", "[[a]] [[b]] [[x/a]]")
		ageFiles(t, root) // not racy: the restart can take it
		stats, err := m.Sync(t.Context())
		require.NoError(t, err)
		require.Positive(t, stats.Written)
		require.NoError(t, m.Close())
		require.NoError(t, store.Close(t.Context()))
		check, _, _, _ := stampedRun(t, root, dir, false, batch)
		require.Equal(t, restoreStampable, check, "seed %d: written after the stamp", seed)
		checkStampTrue(t, root, dir, fmt.Sprintf("seed %d after a write", seed), batch)
	}
}

// A store whose stamp was not recorded after its writes (the process
// stopped between them) is resolved again at the next restart, which
// stamps it; a first sync whose stamp is lost is the same.
func TestAStampNotRecordedIsResolvedAgain(t *testing.T) {
	root := writeVault(t, streamVault(1))
	ageFiles(t, root)
	dir := t.TempDir()
	_, stats, _, _ := stampedRun(t, root, dir, true)
	require.Positive(t, stats.Written)
	check, _, _, _ := stampedRun(t, root, dir, false)
	require.Equal(t, restoreStampable, check, "no stamp recorded")
	checkStampTrue(t, root, dir, "stamped by the restart")
}

// envStampChild names the vault and state folders of
// TestChildSyncKilledBeforeItsStamp.
const envStampChild = "VAULT_TEST_STAMP_CHILD"

// TestChildSyncKilledBeforeItsStamp (a child process of
// TestSyncKilledBetweenWriteAndStamp) runs a first sync that stops after
// its writes, just before its stamp, says so and waits to be killed.
func TestChildSyncKilledBeforeItsStamp(t *testing.T) {
	dirs := os.Getenv(envStampChild)
	if dirs == "" {
		t.Skip("a child process of TestSyncKilledBetweenWriteAndStamp")
	}
	root, dir, _ := strings.Cut(dirs, "\n")
	store, err := memstore.Open(dir)
	require.NoError(t, err)
	stampHook = func() {
		fmt.Println("written")
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until killed
	}
	_, err = newTestMirror(t, root, store, func(c *Config) { c.BatchSize, c.StagedBatch = 2, 3 }).Sync(context.Background())
	require.NoError(t, err)
}

// A first sync SIGKILLed after its writes committed and before its stamp
// leaves a store that the next restart resolves again (and then stamps),
// ending as a full sync.
func TestSyncKilledBetweenWriteAndStamp(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	root := writeVault(t, streamVault(2))
	ageFiles(t, root)
	dir := t.TempDir()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestChildSyncKilledBeforeItsStamp$", "-test.count=1")
	cmd.Env = append(os.Environ(), envStampChild+"="+root+"\n"+dir)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	defer func() { _ = stdin.Close() }()
	require.NoError(t, cmd.Start())
	sc := bufio.NewScanner(stdout)
	written := false
	for sc.Scan() {
		if sc.Text() == "written" {
			written = true
			require.NoError(t, cmd.Process.Kill())
		}
	}
	_ = cmd.Wait()
	require.True(t, written, "the child reached its stamp")

	check, stats, _, _ := stampedRun(t, root, dir, false)
	assert.Equal(t, restoreStampable, check, "killed before its stamp: resolved again")
	assert.Zero(t, stats.Written, "every write had committed")
	checkStampTrue(t, root, dir, "stamped by the restart after the kill")
}

// A note stored racy (read too soon after its change, as a note a tool
// writes is) keeps a restart from stamping; the first restart that finds
// its file no longer racy writes it again with its size, and the restarts
// after it verify, then keep, the stored targets.
func TestARacyNoteIsStoredAgainOnceSettled(t *testing.T) {
	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	root := writeVault(t, map[string]string{"a.md": "one [[b]]", "b.md": "[[a]]", "c.md": "[[a]] [[b]]"})
	dir := t.TempDir()
	racyWindow = time.Hour // a.md and b.md are racy, c.md not
	old := time.Now().Add(-3 * time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(root, "c.md"), old, old))
	sizes := func() map[string]int64 {
		t.Helper()
		store, err := memstore.Open(dir)
		require.NoError(t, err)
		defer func() { require.NoError(t, store.Close(context.Background())) }()
		out := map[string]int64{}
		for _, n := range allNotes(t, store) {
			out[n.ID] = n.Size
		}
		return out
	}
	racy := map[string]int64{"a.md": racySize, "b.md": racySize, "c.md": int64(len("[[a]] [[b]]"))}
	_, stats, _, _ := stampedRun(t, root, dir, false)
	require.Equal(t, 3, stats.Written)
	require.Equal(t, racy, sizes())
	check, _, _, _ := stampedRun(t, root, dir, false)
	require.Equal(t, restoreResolved, check, "racy notes are left out of the restore")
	require.Equal(t, racy, sizes(), "still racy, unchanged: not written")

	racyWindow = 0 // the files have settled
	check, _, _, _ = stampedRun(t, root, dir, false)
	require.Equal(t, restoreResolved, check)
	require.Equal(t, map[string]int64{"a.md": 9, "b.md": 5, "c.md": 11}, sizes(), "written again with their sizes")
	check, stats, _, _ = stampedRun(t, root, dir, false)
	require.Equal(t, restoreStampable, check, "every note restored")
	require.Zero(t, stats.Written)
	checkStampTrue(t, root, dir, "after the racy notes settled")
}

// A session that wrote notes (read too soon after their change, as live
// edits and tool writes are, so stored racy) ends with Settle: it writes
// the settled ones again with their sizes, a note changed since its last
// read as a change, and stamps the store; the next restart restores every
// note and keeps the stored targets, and the stamp is true. Without
// Settle the next restart leaves the racy notes out and resolves again.
func TestSettleStampsTheSessionsWrites(t *testing.T) {
	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	names, text := restartNames, restartText
	for seed := range uint64(8) {
		for _, settle := range []bool{true, false} {
			what := fmt.Sprintf("seed %d settle %v", seed, settle)
			r := rand.New(rand.NewPCG(seed, 11))
			root, dir := t.TempDir(), t.TempDir()
			for _, n := range names {
				if r.IntN(3) > 0 {
					writeFile(t, root, n+".md", text(r))
				}
			}
			ageFiles(t, root)
			racyWindow = 100 * time.Millisecond
			stampedRun(t, root, dir, false)

			store, err := memstore.Open(dir)
			require.NoError(t, err)
			m := newTestMirror(t, root, store)
			_, err = m.Sync(t.Context())
			require.NoError(t, err)
			require.Equal(t, restoreStamped, m.restore, what)
			racyWindow = time.Hour // every read of the session is racy
			var edited []string
			for range 2 {
				for _, n := range names {
					switch r.IntN(8) {
					case 0:
						_ = os.Remove(filepath.Join(root, n+".md"))
					case 1:
						writeFile(t, root, n+".md", text(r))
						edited = append(edited, n+".md")
					}
				}
				writeFile(t, root, "y/fresh.md", text(r))
				edited = append(edited, "y/fresh.md")
				_, err = m.Sync(t.Context())
				require.NoError(t, err, what)
			}
			require.NotEmpty(t, m.racyNotes, what)
			racyWindow = 0 // the files have settled
			// One racy note changed since its last read: Settle applies it.
			changed := edited[r.IntN(len(edited))]
			if _, err := os.Stat(filepath.Join(root, changed)); err == nil {
				writeFile(t, root, changed, text(r)+" [[a]] changed")
			}
			if settle {
				m.Settle(t.Context())
				require.Empty(t, m.racyNotes, what)
			}
			require.NoError(t, m.Close())
			require.NoError(t, store.Close(t.Context()))
			ageFiles(t, root)
			if settle {
				checkStampTrue(t, root, dir, what)
			} else {
				check, _, _, _ := stampedRun(t, root, dir, false)
				require.Equal(t, restoreResolved, check, "%s: racy notes left out of the restore", what)
			}
		}
	}
}

// Settle stamps nothing when the session could not write what the index
// holds: the store keeps no stamp and the next restart resolves again.
func TestSettleAfterAFailedWriteDoesNotStamp(t *testing.T) {
	root := writeVault(t, map[string]string{"a.md": "[[b]]", "b.md": "[[a]]"})
	ageFiles(t, root)
	dir := t.TempDir()
	stampedRun(t, root, dir, true) // written, not stamped
	store, err := memstore.Open(dir)
	require.NoError(t, err)
	m := newTestMirror(t, root, store)
	_, err = m.Sync(t.Context())
	require.NoError(t, err)
	require.Equal(t, restoreStampable, m.restore) // and stamped at its end
	writeFile(t, root, "c.md", "[[a]]")
	ageFiles(t, root)
	stats, err := m.Sync(t.Context()) // a write: the stamp is withdrawn
	require.NoError(t, err)
	require.Equal(t, 1, stats.Written)
	m.mu.Lock()
	m.agrees = false // as a failed write leaves it (storeFailed)
	m.mu.Unlock()
	m.Settle(t.Context())
	require.NoError(t, m.Close())
	require.NoError(t, store.Close(t.Context()))
	check, _, _, _ := stampedRun(t, root, dir, false)
	require.Equal(t, restoreStampable, check, "not stamped: resolved again")
}
