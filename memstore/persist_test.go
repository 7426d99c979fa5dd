package memstore_test

import (
	"bufio"
	"errors"
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
	bolt "go.etcd.io/bbolt"

	"github.com/vaultgraph/vaultgraph/memstore"
)

// Environment switches that turn this test binary into a child process for
// the tests below. Unset, the child tests skip.
const (
	envWriterDir   = "MEMSTORE_TEST_WRITER_DIR"   // TestChildWriter: state dir to write to
	envWriterRound = "MEMSTORE_TEST_WRITER_ROUND" // TestChildWriter: prefix of record ids
	envOpenerDir   = "MEMSTORE_TEST_OPENER_DIR"   // TestChildOpener: state dir to try
)

// TestChildWriter writes project records until it is killed, printing
// "ack <id>" to stdout after each PutProject returns.
func TestChildWriter(t *testing.T) {
	dir := os.Getenv(envWriterDir)
	if dir == "" {
		t.Skip("child process of TestAcknowledgedRecordsSurviveSIGKILL")
	}
	s, err := memstore.Open(dir)
	if err != nil {
		fmt.Println("open failed:", err)
		os.Exit(3)
	}
	round := os.Getenv(envWriterRound)
	for i := 0; ; i++ {
		id := fmt.Sprintf("%s-%06d", round, i)
		if err := s.PutProject(t.Context(), record(id)); err != nil {
			fmt.Println("put failed:", err)
			os.Exit(2)
		}
		fmt.Println("ack", id) // one write(2) to a pipe: whole or not at all
	}
}

// TestChildOpener tries to open a state dir another process holds and
// prints what it got.
func TestChildOpener(t *testing.T) {
	dir := os.Getenv(envOpenerDir)
	if dir == "" {
		t.Skip("child process of TestASecondProcessGetsAClearErrorQuickly")
	}
	s, err := memstore.Open(dir)
	if err == nil {
		_ = s.Close(t.Context())
		fmt.Println("opened")
		return
	}
	fmt.Printf("locked=%v error=%v\n", errors.Is(err, memstore.ErrStateLocked), err)
}

func child(t *testing.T, test string, env ...string) *exec.Cmd {
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

// A record whose PutProject returned before the process was SIGKILLed is on
// disk, and the file opens cleanly afterwards, whenever the kill lands.
func TestAcknowledgedRecordsSurviveSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	var acked []string
	const rounds = 6
	for round := range rounds {
		cmd := child(t, "TestChildWriter", envWriterDir+"="+dir, fmt.Sprintf("%s=r%d", envWriterRound, round))
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Start())

		lines := make(chan string)
		go func() {
			defer close(lines)
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				lines <- sc.Text()
			}
		}()
		// Kill at a random moment: sometimes before the first write (the
		// child may still be opening), mostly in the middle of a stream.
		delay := time.Duration(rng.IntN(400)) * time.Millisecond
		if round == 0 {
			delay = 0
		}
		kill := time.After(delay)
		var other []string
		for alive := true; alive; {
			select {
			case l, ok := <-lines:
				if !ok {
					alive = false
					break
				}
				if id, isAck := strings.CutPrefix(l, "ack "); isAck {
					acked = append(acked, id)
				} else {
					other = append(other, l)
				}
			case <-kill:
				require.NoError(t, cmd.Process.Kill()) // SIGKILL
			}
		}
		err = cmd.Wait()
		require.Error(t, err, "the child only stops when killed; output %v, stderr %s", other, stderr.String())
		for _, l := range other {
			assert.False(t, strings.Contains(l, "failed"), "child reported: %s", l)
		}
		t.Logf("round %d: killed after %s, %d records acknowledged so far", round, delay, len(acked))
	}
	require.NotEmpty(t, acked, "no round wrote anything; the test proved nothing")

	db, err := bolt.Open(filepath.Join(dir, memstore.StateFileName), 0o600, &bolt.Options{Timeout: time.Second, ReadOnly: true})
	require.NoError(t, err, "the state file must open after the kills")
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		return nil
	}), "bbolt consistency check")
	require.NoError(t, db.Close())

	s, err := memstore.Open(dir)
	require.NoError(t, err)
	defer s.Close(t.Context())
	recs, err := s.Projects(t.Context())
	require.NoError(t, err)
	stored := make(map[string]memstore.ProjectRecord, len(recs))
	for _, r := range recs {
		stored[r.ID] = r
	}
	for _, id := range acked {
		r, ok := stored[id]
		if assert.True(t, ok, "acknowledged record %s is missing", id) {
			assert.Equal(t, record(id), r)
		}
	}
}

func TestASecondProcessGetsAClearErrorQuickly(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	dir := t.TempDir()
	s, err := memstore.Open(dir)
	require.NoError(t, err)

	start := time.Now()
	out, err := child(t, "TestChildOpener", envOpenerDir+"="+dir).Output()
	elapsed := time.Since(start)
	require.NoError(t, err)
	assert.Contains(t, string(out), "locked=true")
	assert.Contains(t, string(out), "in use by another process")
	assert.Less(t, elapsed, memstore.DefaultLockTimeout+10*time.Second, "the child must give up after the lock timeout")

	require.NoError(t, s.Close(t.Context()))
	out, err = child(t, "TestChildOpener", envOpenerDir+"="+dir).Output()
	require.NoError(t, err)
	assert.Contains(t, string(out), "opened", "the lock is released on Close")
}

func TestASecondOpenInTheSameProcessIsRefusedToo(t *testing.T) {
	dir := t.TempDir()
	s, err := memstore.Open(dir)
	require.NoError(t, err)
	defer s.Close(t.Context())
	start := time.Now()
	_, err = memstore.Open(dir, memstore.WithLockTimeout(50*time.Millisecond))
	assert.ErrorIs(t, err, memstore.ErrStateLocked)
	assert.Less(t, time.Since(start), 5*time.Second)
}

func TestOpenReportsAFileThatIsNotAStateFile(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, memstore.StateFileName), []byte("not a bbolt file, just text that is long enough"), 0o600))
	_, err := memstore.Open(dir)
	require.Error(t, err)
	assert.NotErrorIs(t, err, memstore.ErrStateLocked)
}
