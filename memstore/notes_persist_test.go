package memstore_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// noteOps is a deterministic stream of note writes: op i of a seed is the
// same in every process, so a test can replay on an in-memory store what a
// killed child acknowledged. With stamps, a third of the ops are followed
// by a stamp (which writes the table of link targets the next load takes
// targets from, until a write leaves it stale: memstore/targets.go).
type noteOps struct {
	seed   uint64
	stamps bool
}

const opsProject = "p"

var opNames = []string{"a", "b", "c", "d", "e", "x/a", "x/b", "y/c", "hub", "A"}

func (o noteOps) note(r *rand.Rand, name string, round int) core.Note {
	id := name + ".md"
	var links []core.Link
	for range r.IntN(6) {
		k := opNames[r.IntN(len(opNames))]
		if r.IntN(5) == 0 {
			k = "ghost" + strconv.Itoa(r.IntN(3))
		}
		l := core.Link{Raw: "[[" + k + "|alias]]", Key: strings.ToLower(k), Alias: "alias", Heading: "", Embed: r.IntN(4) == 0}
		if r.IntN(3) > 0 && !strings.HasPrefix(k, "ghost") {
			l.Target = k + ".md"
		}
		links = append(links, l)
	}
	n := core.Note{
		ID: id, Path: name + ".md", Title: "Title " + name + " " + strconv.Itoa(round%3),
		Content: fmt.Sprintf("round %d of %s: words w%d w%d ünïcode %s", round, name, r.IntN(9), r.IntN(9), strings.Repeat("x", r.IntN(700))),
		Tags:    []string{"T" + strconv.Itoa(r.IntN(3))}, Links: links,
		Hash: fmt.Sprintf("h%d-%s", round, name), Size: int64(r.IntN(5000)),
		ModTime: time.Unix(1700000000, int64(r.IntN(1e9))).UTC(),
		Keys:    []string{strings.ToLower(name), strings.ToLower(name[strings.LastIndex(name, "/")+1:])},
	}
	if r.IntN(3) == 0 {
		n.Frontmatter = map[string]any{"n": int64(r.IntN(10)), "list": []any{"a", true, 2.5}}
	}
	if r.IntN(4) == 0 {
		n.Tags = append(n.Tags, "shared")
	}
	return n
}

// apply runs op i on s: an upsert of 1-4 notes, a staged upsert of several,
// or a delete (and a stamp, see noteOps).
func (o noteOps) apply(ctx context.Context, s *memstore.Store, i int) error {
	r := rand.New(rand.NewPCG(o.seed, uint64(i)))
	if err := o.op(ctx, s, r, i); err != nil {
		return err
	}
	if o.stamps && r.IntN(3) == 0 {
		return s.StampStates(ctx, opsProject, "v1")
	}
	return nil
}

func (o noteOps) op(ctx context.Context, s *memstore.Store, r *rand.Rand, i int) error {
	switch k := r.IntN(10); {
	case k < 2:
		var ids []string
		for range 1 + r.IntN(3) {
			ids = append(ids, opNames[r.IntN(len(opNames))]+".md")
		}
		_, err := s.DeleteNotes(ctx, opsProject, ids)
		return err
	default:
		var notes []core.Note
		for range 1 + r.IntN(4) {
			notes = append(notes, o.note(r, opNames[r.IntN(len(opNames))], i))
		}
		if k == 9 {
			return s.UpsertNotesStaged(ctx, opsProject, notes, nil)
		}
		return s.UpsertNotes(ctx, opsProject, notes)
	}
}

// describeStore lists everything a client can read of the project, in a
// stable order: notes (all fields), degrees, neighbours, unresolved
// linkers, note states, hubs, tags and keyword hits.
func describeStore(t *testing.T, s *memstore.Store) []string {
	t.Helper()
	ctx := t.Context()
	var out []string
	hashes, err := s.NoteHashes(ctx, opsProject)
	require.NoError(t, err)
	ids := slices.Sorted(func(yield func(string) bool) {
		for id := range hashes {
			if !yield(id) {
				return
			}
		}
	})
	notes, err := s.GetNotes(ctx, opsProject, ids)
	require.NoError(t, err)
	for _, n := range notes {
		d, err := s.Degree(ctx, opsProject, n.ID)
		require.NoError(t, err)
		nb, err := s.Neighbors(ctx, opsProject, n.ID, core.DirectionBoth, 0)
		require.NoError(t, err)
		var nbs []string
		for _, x := range nb {
			nbs = append(nbs, string(x.Direction)+":"+x.Note.ID+":"+x.Note.Content[:min(10, len(x.Note.Content))])
		}
		nc, err := s.NoteContext(ctx, opsProject, n.ID, core.ContextQuery{Direction: core.DirectionBoth})
		require.NoError(t, err)
		out = append(out, fmt.Sprintf("note %s %q %q %q %v %v %d %s %v %v deg=%v nb=%v view=%v",
			n.ID, n.Title, n.Path, n.Content, n.Tags, n.Links, n.Size, n.ModTime.UTC().Format(time.RFC3339Nano),
			n.Frontmatter, n.Hash, d, nbs, nc))
	}
	for _, k := range []string{"a", "b", "ghost0", "ghost1", "ghost2", "hub", "y/c", "c"} {
		u, err := s.UnresolvedLinkers(ctx, opsProject, []string{k})
		require.NoError(t, err)
		out = append(out, fmt.Sprintf("unresolved %s %v", k, u))
	}
	var states []string
	require.NoError(t, s.NoteStates(ctx, opsProject, func(st core.NoteState) error {
		states = append(states, fmt.Sprintf("state %s %s %s %d %s %v", st.ID, st.Path, st.Hash, st.Size, st.ModTime.UTC().Format(time.RFC3339Nano), st.Links))
		return nil
	}))
	slices.Sort(states)
	out = append(out, states...)
	for _, m := range []core.HubMetric{core.MetricInDegree, core.MetricOutDegree, core.MetricPageRank} {
		h, err := s.Hubs(ctx, opsProject, m, 5)
		require.NoError(t, err)
		out = append(out, fmt.Sprintf("hubs %s %v", m, h))
	}
	for _, tags := range [][]string{{"t0"}, {"T1", "shared"}} {
		v, err := s.TaggedViews(ctx, opsProject, tags, core.TagModeAny, 0)
		require.NoError(t, err)
		out = append(out, fmt.Sprintf("tagged %v %v", tags, v))
	}
	for _, q := range []string{"w3", "round 4", "ünïcode title"} {
		hits, err := s.KeywordSearch(ctx, opsProject, q, 20)
		require.NoError(t, err)
		out = append(out, fmt.Sprintf("keyword %q %v", q, hits))
	}
	return out
}

// TestNotesSurviveReopening writes the same stream of operations into an
// in-memory store and a file-backed one that is closed and opened again
// at random points; after every step, both answer every read alike.
func TestNotesSurviveReopening(t *testing.T) {
	for seed := range uint64(8) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			ctx, dir := t.Context(), t.TempDir()
			ops := noteOps{seed: seed, stamps: true}
			r := rand.New(rand.NewPCG(seed, 99))
			want := memstore.New()
			got, err := memstore.Open(dir)
			require.NoError(t, err)
			defer func() { _ = got.Close(ctx) }()
			for i := range 40 {
				require.NoError(t, ops.apply(ctx, want, i))
				require.NoError(t, ops.apply(ctx, got, i))
				if r.IntN(4) == 0 {
					require.NoError(t, got.Close(ctx))
					got, err = memstore.Open(dir)
					require.NoError(t, err)
				}
				if i%8 == 7 || i == 39 {
					require.Equal(t, describeStore(t, want), describeStore(t, got), "after op %d", i)
				}
			}
		})
	}
}

// Environment switches of the child writer of
// TestAcknowledgedNotesSurviveSIGKILL.
const (
	envNotesDir  = "MEMSTORE_TEST_NOTES_DIR"
	envNotesSeed = "MEMSTORE_TEST_NOTES_SEED"
	envNotesFrom = "MEMSTORE_TEST_NOTES_FROM"
	// envNotesStamps: the child stamps too (noteOps.stamps).
	envNotesStamps = "MEMSTORE_TEST_NOTES_STAMPS"
)

// TestChildNoteWriter applies the note operations of a seed from a given
// index on, printing "ack <i>" after each returns, until it is killed.
func TestChildNoteWriter(t *testing.T) {
	dir := os.Getenv(envNotesDir)
	if dir == "" {
		t.Skip("child process of TestAcknowledgedNotesSurviveSIGKILL")
	}
	seed, _ := strconv.ParseUint(os.Getenv(envNotesSeed), 10, 64)
	from, _ := strconv.Atoi(os.Getenv(envNotesFrom))
	s, err := memstore.Open(dir, memstore.WithLockTimeout(30*time.Second))
	if err != nil {
		fmt.Println("open failed:", err)
		os.Exit(3)
	}
	fmt.Println("open")
	ops := noteOps{seed: seed, stamps: os.Getenv(envNotesStamps) != ""}
	for i := from; ; i++ {
		if err := ops.apply(t.Context(), s, i); err != nil {
			fmt.Println("op failed:", err)
			os.Exit(2)
		}
		fmt.Println("ack", i)
	}
}

// TestAcknowledgedNotesSurviveSIGKILL kills a process writing notes at
// random moments. After each kill a new store opens the state folder and
// must answer every read exactly as a store that ran the acknowledged
// operations, or those and the one in flight (which may or may not have
// landed), and nothing else.
func TestAcknowledgedNotesSurviveSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("MEMSTORE_CRASH_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (MEMSTORE_CRASH_SEED replays it)", seed)
	ctx, dir := t.Context(), t.TempDir()
	ops := noteOps{seed: seed, stamps: true}
	rng := rand.New(rand.NewPCG(seed, 1))
	done := 0 // operations known to be on disk
	rounds := 12
	if s := os.Getenv("MEMSTORE_CRASH_ROUNDS"); s != "" {
		rounds, _ = strconv.Atoi(s)
	}
	landedInFlight := 0
	for round := range rounds {
		cmd := child(t, "TestChildNoteWriter", envNotesDir+"="+dir, envNotesStamps+"=1",
			fmt.Sprintf("%s=%d", envNotesSeed, seed), fmt.Sprintf("%s=%d", envNotesFrom, done))
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
		delay := time.Duration(rng.IntN(300)) * time.Millisecond
		var kill <-chan time.Time
		acked := done - 1
		for alive := true; alive; {
			select {
			case l, ok := <-lines:
				if !ok {
					alive = false
					break
				}
				switch {
				case l == "open":
					kill = time.After(delay) // from the open on: a kill while opening proves little
				case strings.HasPrefix(l, "ack "):
					acked, _ = strconv.Atoi(strings.TrimPrefix(l, "ack "))
				default:
					t.Errorf("child: %s (stderr %s)", l, stderr.String())
				}
			case <-kill:
				require.NoError(t, cmd.Process.Kill())
				kill = nil
			}
		}
		_ = cmd.Wait()

		// What the disk must hold: ops 0..acked, perhaps acked+1 too.
		before, after := memstore.New(), memstore.New()
		for i := 0; i <= acked; i++ {
			require.NoError(t, ops.apply(ctx, before, i))
			require.NoError(t, ops.apply(ctx, after, i))
		}
		require.NoError(t, ops.apply(ctx, after, acked+1))
		s, err := memstore.Open(dir)
		require.NoError(t, err, "the state folder opens after a SIGKILL")
		got := describeStore(t, s)
		require.NoError(t, s.Close(ctx))
		switch {
		case slices.Equal(got, describeStore(t, before)):
			done = acked + 1
		case slices.Equal(got, describeStore(t, after)):
			done = acked + 2
			landedInFlight++
		default:
			require.Equal(t, describeStore(t, before), got, "round %d: the store after the kill is neither the acknowledged state nor that plus the write in flight (op %d)", round, acked+1)
		}
		t.Logf("round %d: killed %s after opening; %d operations acknowledged", round, delay, acked+1)
	}
	t.Logf("%d kills, %d operations on disk, %d in-flight writes landed", rounds, done, landedInFlight)
	require.Positive(t, done, "nothing was written; the test proved nothing")
}

// TestAStoreWithoutTermVectorsIndexesItsNotesAgain: notes stored before
// the keyword index's term vectors were kept are analysed from their text
// at the load, and their term vectors written for the next one.
func TestAStoreWithoutTermVectorsIndexesItsNotesAgain(t *testing.T) {
	ctx, dir := t.Context(), t.TempDir()
	ops := noteOps{seed: 5}
	want := memstore.New()
	s, err := memstore.Open(dir)
	require.NoError(t, err)
	for i := range 30 {
		require.NoError(t, ops.apply(ctx, want, i))
		require.NoError(t, ops.apply(ctx, s, i))
	}
	require.NoError(t, s.Close(ctx))

	db, err := bolt.Open(filepath.Join(dir, memstore.StateFileName), 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		for _, b := range []string{"kwdocs:" + opsProject, "kwterms:" + opsProject} {
			if err := tx.DeleteBucket([]byte(b)); err != nil {
				return err
			}
		}
		return nil
	}))
	require.NoError(t, db.Close())

	for range 2 { // analysed, then read back
		s, err = memstore.Open(dir)
		require.NoError(t, err)
		require.Equal(t, describeStore(t, want), describeStore(t, s))
		require.NoError(t, s.Close(ctx))
	}
}

// NoteStates decodes the next chunk of states while the caller takes one:
// on a reopened store of several chunks it gives every note once with its
// stored size, and stops at the callback's first error, mid-way.
func TestNoteStatesOverSeveralChunks(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := memstore.Open(dir)
	require.NoError(t, err)
	const n = 2500 // three chunks
	notes := make([]core.Note, n)
	for i := range notes {
		id := fmt.Sprintf("n%05d.md", i)
		notes[i] = core.Note{ID: id, Path: id, Title: id, Hash: "h" + id, Size: int64(i), ModTime: time.Unix(int64(i), 0),
			Links: []core.Link{{Raw: fmt.Sprintf("[[n%05d]]", (i+1)%n), Key: fmt.Sprintf("n%05d", (i+1)%n), Target: fmt.Sprintf("n%05d.md", (i+1)%n)}}}
	}
	require.NoError(t, s.UpsertNotes(ctx, opsProject, notes))
	require.NoError(t, s.Close(ctx))
	s, err = memstore.Open(dir)
	require.NoError(t, err)
	defer s.Close(ctx)

	seen := map[string]bool{}
	require.NoError(t, s.NoteStates(ctx, opsProject, func(st core.NoteState) error {
		require.False(t, seen[st.ID], "note %s given twice", st.ID)
		seen[st.ID] = true
		var i int
		_, err := fmt.Sscanf(st.ID, "n%05d.md", &i)
		require.NoError(t, err)
		require.Equal(t, int64(i), st.Size, st.ID)
		require.Len(t, st.Links, 1)
		require.Equal(t, fmt.Sprintf("n%05d.md", (i+1)%n), st.Links[0].Target)
		return nil
	}))
	require.Len(t, seen, n)

	stop := errors.New("enough")
	calls := 0
	err = s.NoteStates(ctx, opsProject, func(core.NoteState) error {
		calls++
		if calls == 1500 {
			return stop
		}
		return nil
	})
	require.ErrorIs(t, err, stop)
	require.Equal(t, 1500, calls)
}

// statesOf lists the project's note states as NoteStates gives them, sorted.
func statesOf(t *testing.T, s *memstore.Store) []string {
	t.Helper()
	var states []string
	require.NoError(t, s.NoteStates(t.Context(), opsProject, func(st core.NoteState) error {
		states = append(states, fmt.Sprintf("state %s %s %s %d %s %v", st.ID, st.Path, st.Hash, st.Size, st.ModTime.UTC().Format(time.RFC3339Nano), st.Links))
		return nil
	}))
	slices.Sort(states)
	return states
}

// A restart's NoteStates loads the graph and gives the states from the
// same pass over the records: they are those a loaded graph gives (links'
// targets as memory holds them, a target deleted since unresolved), and
// the store loaded that way answers every read (keyword searches, whose
// index it loads only once something else asks) as one never closed.
func TestNoteStatesOfAStoreJustOpened(t *testing.T) {
	for seed := range uint64(6) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			ctx, dir := t.Context(), t.TempDir()
			ops := noteOps{seed: seed}
			want := memstore.New()
			got, err := memstore.Open(dir)
			require.NoError(t, err)
			for i := range 40 {
				require.NoError(t, ops.apply(ctx, want, i))
				require.NoError(t, ops.apply(ctx, got, i))
			}
			require.NoError(t, got.Close(ctx))
			got, err = memstore.Open(dir)
			require.NoError(t, err)
			defer func() { _ = got.Close(ctx) }()
			first := statesOf(t, got) // loads the graph
			require.Equal(t, statesOf(t, want), first)
			require.Equal(t, first, statesOf(t, got)) // read from the loaded graph
			require.Equal(t, describeStore(t, want), describeStore(t, got))
		})
	}
}

// A callback failing during the load stops the states but not the load:
// the store answers fully after it.
func TestNoteStatesFailingWhileLoading(t *testing.T) {
	ctx, dir := t.Context(), t.TempDir()
	s, err := memstore.Open(dir)
	require.NoError(t, err)
	const n = 2500 // three chunks
	notes := make([]core.Note, n)
	for i := range notes {
		id := fmt.Sprintf("n%05d.md", i)
		notes[i] = core.Note{ID: id, Path: id, Title: id, Hash: "h" + id, Size: int64(i), ModTime: time.Unix(int64(i), 0), Content: "word" + id}
	}
	require.NoError(t, s.UpsertNotes(ctx, opsProject, notes))
	require.NoError(t, s.Close(ctx))
	s, err = memstore.Open(dir)
	require.NoError(t, err)
	defer s.Close(ctx)
	stop := errors.New("enough")
	calls := 0
	err = s.NoteStates(ctx, opsProject, func(core.NoteState) error {
		calls++
		if calls == 1500 {
			return stop
		}
		return nil
	})
	require.ErrorIs(t, err, stop)
	require.Equal(t, 1500, calls)
	require.Len(t, statesOf(t, s), n)
	count, err := s.CountNotes(ctx, opsProject)
	require.NoError(t, err)
	require.Equal(t, n, count)
	hits, err := s.KeywordSearch(ctx, opsProject, "wordn00042.md", 5)
	require.NoError(t, err)
	require.NotEmpty(t, hits)
}

// CountNotes of a project not loaded counts its records once per state of
// the file: asked again it answers the same, and any write in between (to
// another project too) makes it count again.
func TestCountNotesOfAProjectNotLoaded(t *testing.T) {
	ctx, dir := t.Context(), t.TempDir()
	s, err := memstore.Open(dir)
	require.NoError(t, err)
	note := func(id string) core.Note {
		return core.Note{ID: id, Path: id, Title: id, Hash: "h" + id, Size: 1, ModTime: time.Unix(1, 0)}
	}
	require.NoError(t, s.UpsertNotes(ctx, "a", []core.Note{note("x.md"), note("y.md")}))
	require.NoError(t, s.Close(ctx))
	s, err = memstore.Open(dir)
	require.NoError(t, err)
	defer s.Close(ctx)
	for range 2 {
		n, err := s.CountNotes(ctx, "a")
		require.NoError(t, err)
		require.Equal(t, 2, n)
	}
	n, err := s.CountNotes(ctx, "b")
	require.NoError(t, err)
	require.Equal(t, 0, n)
	require.NoError(t, s.UpsertNotes(ctx, "b", []core.Note{note("z.md")}))
	n, err = s.CountNotes(ctx, "b")
	require.NoError(t, err)
	require.Equal(t, 1, n)
	n, err = s.CountNotes(ctx, "a")
	require.NoError(t, err)
	require.Equal(t, 2, n)
}
