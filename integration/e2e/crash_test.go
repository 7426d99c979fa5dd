package e2e

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/confine"
)

// crashRunsEnv overrides the number of runs of TestCrashSafety ("make
// soak" sets 1000); crashSeedEnv replays one seed.
const (
	crashRunsEnv    = "VAULTGRAPH_CRASH_RUNS"
	crashSeedEnv    = "VAULTGRAPH_CRASH_SEED"
	defaultCrashRun = 200
)

// rawStdio is a vaultgraph serve spoken to in raw JSON-RPC lines over an
// OS pipe, so that the test decides when the process dies and sees exactly
// which answers it wrote before.
type rawStdio struct {
	*proc
	in     *os.File
	nextID int
	read   int                                // bytes of stdout parsed into byID
	byID   map[int]map[string]json.RawMessage // answers parsed so far
}

func startRawStdio(t *testing.T, env []string, args ...string) *rawStdio {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p := startProc(t, env, r, args...)
	r.Close()
	t.Cleanup(func() { w.Close() })
	return &rawStdio{proc: p, in: w, byID: map[int]map[string]json.RawMessage{}}
}

// send writes a request and returns its id.
func (s *rawStdio) send(t *testing.T, method string, params any) int {
	t.Helper()
	s.nextID++
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.nextID, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.in.Write(append(b, '\n')); err != nil {
		t.Fatalf("write to vaultgraph: %v", err)
	}
	return s.nextID
}

// answers returns the complete answer lines written so far, by id; a
// last line the process did not finish (it was killed writing it) is left
// out.
func (s *rawStdio) answers(t *testing.T) map[int]map[string]json.RawMessage {
	t.Helper()
	out := s.stdout.String()[s.read:]
	if i := strings.LastIndexByte(out, '\n'); i >= 0 {
		out = out[:i+1]
	} else {
		out = ""
	}
	s.read += len(out)
	for _, msg := range jsonLines(t, out) {
		var id int
		if json.Unmarshal(msg["id"], &id) == nil {
			s.byID[id] = msg
		}
	}
	return s.byID
}

// wait returns the answer to id, failing t after callTimeout.
func (s *rawStdio) wait(t *testing.T, id int) map[string]json.RawMessage {
	t.Helper()
	var msg map[string]json.RawMessage
	if !eventuallyEvery(callTimeout, time.Millisecond, func() bool { msg = s.answers(t)[id]; return msg != nil || s.exited() }) || msg == nil {
		t.Fatalf("no answer to request %d; stderr:\n%s", id, s.stderr.String())
	}
	return msg
}

// call calls a tool and returns its answer.
func (s *rawStdio) call(t *testing.T, name string, args any) reply {
	t.Helper()
	msg := s.wait(t, s.send(t, "tools/call", map[string]any{"name": name, "arguments": args}))
	return rawReply(t, name, msg)
}

// rawReply reads a tools/call answer line.
func rawReply(t *testing.T, name string, msg map[string]json.RawMessage) reply {
	t.Helper()
	if msg["error"] != nil {
		t.Fatalf("%s: JSON-RPC error %s", name, msg["error"])
	}
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(msg["result"], &res); err != nil || len(res.Content) == 0 {
		t.Fatalf("%s: result %.300s: %v", name, msg["result"], err)
	}
	return reply{isError: res.IsError, text: res.Content[0].Text}
}

func (s *rawStdio) initialize(t *testing.T) {
	t.Helper()
	s.wait(t, s.send(t, "initialize", map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "vaultgraph-crash", "version": "1"},
	}))
	if _, err := s.in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"); err != nil {
		t.Fatal(err)
	}
	s.waitFirstSync(t)
}

// waitFirstSync waits until serve's first sync is done (it answers
// initialize at once and syncs in the background, finishing what a crash
// left: the tests look at the disk after it). A read with a progress token
// waits for the sync (server.FirstSync), at most 15 s at a time; one that
// still carries the first-sync notice is sent again.
func (s *rawStdio) waitFirstSync(t *testing.T) {
	t.Helper()
	if !eventually(readyTimeout, func() bool {
		msg := s.wait(t, s.send(t, "tools/call", map[string]any{
			"name": "get_node", "arguments": map[string]any{"id": "no/such/note.md"},
			"_meta": map[string]any{"progressToken": "first-sync"},
		}))
		return !strings.Contains(string(msg["result"]), "still syncing")
	}) {
		t.Fatalf("the first sync did not end within %s; stderr:\n%s", readyTimeout, s.stderr.String())
	}
}

// eventuallyEvery is eventually with a polling interval.
func eventuallyEvery(timeout, every time.Duration, check func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !check() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(every)
	}
	return true
}

// ---- the model of the vault the crash test keeps ------------------------

// crashNote is one note as the test believes it is on disk.
type crashNote struct {
	title string // = its file name without .md, in folder crash/
	body  string // the self-checking body written last (see crashBody)
}

func (n crashNote) rel() string { return "crash/" + n.title + ".md" }

// crashBody is a note body that shows whether it arrived whole: a
// random-length payload between a BEGIN line and an END line carrying the
// payload's SHA-256.
func crashBody(rng *rand.Rand, token string) string {
	payload := strings.Repeat(fmt.Sprintf("%s %d ", token, rng.IntN(1000)), 50+rng.IntN(400))
	return fmt.Sprintf("BEGIN %s\n%s\nEND %s %x\n", token, payload, token, sha256.Sum256([]byte(payload)))
}

var crashBodyRe = regexp.MustCompile(`(?s)\ABEGIN (\S+)\n(.*)\nEND (\S+) ([0-9a-f]{64})\n\z`)

// checkWhole fails unless disk is a frontmatter block (or nothing)
// followed by a whole crashBody, and returns that body.
func checkWhole(disk string) (string, error) {
	body := disk
	if strings.HasPrefix(disk, "---\n") {
		end := strings.Index(disk[4:], "\n---\n")
		if end < 0 {
			return "", fmt.Errorf("frontmatter without an end: %.200q", disk)
		}
		body = strings.TrimLeft(disk[4+end+5:], "\n")
	}
	m := crashBodyRe.FindStringSubmatch(body)
	if m == nil {
		return "", fmt.Errorf("torn or empty note (%d bytes): %.120q ... %.120q", len(disk), disk, disk[max(0, len(disk)-120):])
	}
	if m[1] != m[3] || fmt.Sprintf("%x", sha256.Sum256([]byte(m[2]))) != m[4] {
		return "", fmt.Errorf("note body does not match its checksum (token %s/%s)", m[1], m[3])
	}
	return body, nil
}

// crashOp is one write the test sends; before and after are the states of
// the note it touches (nil: no such note), keyed by the note's slot.
type crashOp struct {
	kind          string
	slot          int
	tool          string
	args          map[string]any
	before, after *crashNote
	id            int // JSON-RPC id once sent
}

// crashOpKinds are the writes the crash test makes: note writes (a kind
// plans its call and the note states before and after it;
// checkCrashState does the rest) and memory_store (checkCrashMemories).
var crashOpKinds = []string{"create", "update", "rename", "delete", "memory"}

// planCrashOps picks up to k writes on distinct slots.
func planCrashOps(rng *rand.Rand, notes map[int]*crashNote, nextSlot *int, run int, k int) []*crashOp {
	var ops []*crashOp
	used := map[int]bool{}
	slots := make([]int, 0, len(notes))
	for s := range notes {
		slots = append(slots, s)
	}
	slices.Sort(slots)
	for i := 0; i < k; i++ {
		kind := crashOpKinds[rng.IntN(len(crashOpKinds))]
		if len(notes) < 6 {
			kind = "create"
		} else if len(notes) > 24 && kind == "create" {
			kind = "delete"
		}
		token := fmt.Sprintf("r%dop%d", run, i)
		if kind == "memory" {
			ops = append(ops, &crashOp{kind: kind, slot: -1, tool: "memory_store",
				args: map[string]any{"content": "crash memory " + token, "memory_type": "fact"}})
			continue
		}
		if kind == "create" {
			slot := *nextSlot
			*nextSlot++
			n := &crashNote{title: fmt.Sprintf("note-%d", slot), body: crashBody(rng, token)}
			ops = append(ops, &crashOp{kind: kind, slot: slot, tool: "create_node",
				args:  map[string]any{"title": n.title, "content": n.body, "directory": "crash", "tags": []string{"crash"}},
				after: n})
			continue
		}
		slot := slots[rng.IntN(len(slots))]
		if used[slot] {
			continue
		}
		used[slot] = true
		old := notes[slot]
		op := &crashOp{kind: kind, slot: slot, before: old}
		id := strings.ToLower(old.rel())
		switch kind {
		case "update":
			n := &crashNote{title: old.title, body: crashBody(rng, token)}
			op.tool, op.args, op.after = "update_node", map[string]any{"id": id, "content": n.body}, n
		case "rename":
			n := &crashNote{title: fmt.Sprintf("note-%d-r%d", slot, run), body: old.body}
			op.tool, op.args, op.after = "update_node", map[string]any{"id": id, "title": n.title}, n
		case "delete":
			op.tool, op.args = "delete_node", map[string]any{"id": id}
		}
		ops = append(ops, op)
	}
	return ops
}

// crashStats are the figures TestCrashSafety prints.
type crashStats struct {
	runs, kills, opsSent, opsAnswered, opsLanded, notesChecked int
	repaired                                                   int // notes cut short, repaired by the next scan
	tempFiles                                                  map[string]bool
}

// TestCrashSafety SIGKILLs "vaultgraph serve" (embedded store) at random
// moments while it creates, updates, renames and deletes notes and stores
// memories, restarts it, and checks after each crash that (1) every note
// file is whole, with either its content before the write or after it,
// never empty or torn; (2) a write the server answered survived, memories
// included; (3) no file is doubled or lost by a rename; (4) after the
// startup sync the store holds exactly the vault's notes with their
// current content.
func TestCrashSafety(t *testing.T) {
	t.Parallel()
	runs, seed, rng := crashSeed(t, 1)
	vault, notes, nextSlot := crashVault(t, rng)
	st := embeddedStore(t)
	env := processEnv(t, st, "VAULTGRAPH_LOG_LEVEL=warn", "VAULTGRAPH_TOOLSETS=graph,memory")
	args := append([]string{"serve", "--vault", vault}, st.args...)

	stats := crashStats{tempFiles: map[string]bool{}}
	mems := crashMemories{sent: map[string]bool{}, acked: map[string]bool{}}
	start := time.Now()
	// batchTime estimates how long a batch of writes takes to be answered:
	// every fifth run waits for all the answers and measures it (then
	// kills an idle server); the others kill at a uniformly random moment
	// within it, before, during or between the writes.
	batchTime := 5 * time.Millisecond
	for run := range runs {
		s := startRawStdio(t, env, args...)
		s.initialize(t)
		checkCrashState(t, s, vault, notes, &stats)
		checkCrashMemories(t, s, mems, &stats)
		if t.Failed() {
			t.Fatalf("crash: run %d of seed %d failed", run, seed)
		}

		ops := sendCrashBatch(t, s, rng, notes, &nextSlot, run, &batchTime, &stats)
		if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil && !s.exited() {
			t.Fatal(err)
		}
		stats.kills++
		if _, ok := s.exitCode(readyTimeout); !ok {
			t.Fatal("the killed process did not exit")
		}
		applyCrashOps(t, run, vault, ops, s.answers(t), notes, &mems, &stats)
		stats.runs++
	}
	// The last crash, checked by one more start.
	s := startRawStdio(t, env, args...)
	s.initialize(t)
	checkCrashState(t, s, vault, notes, &stats)
	checkCrashMemories(t, s, mems, &stats)
	t.Logf("crash: %d memories acknowledged, %d sent, all acknowledged ones present after every restart", len(mems.acked), len(mems.sent))
	t.Logf("crash: %d runs, %d SIGKILLs in %s (batches answered in ~%s): %d writes sent, %d answered before the kill, %d landed (%d cut short and repaired by the next start); %d note checks; %d leftover temp files; %d errors",
		stats.runs, stats.kills, time.Since(start).Round(time.Millisecond), batchTime.Round(time.Microsecond), stats.opsSent, stats.opsAnswered, stats.opsLanded, stats.repaired, stats.notesChecked, len(stats.tempFiles), btoi(t.Failed()))
}

// sendCrashBatch plans 1–5 writes and sends them through s, then returns
// at the moment to kill: every fifth run once they are all answered (which
// measures batchTime), the others at a uniformly random moment within
// batchTime, before, during or between the writes.
func sendCrashBatch(t *testing.T, s *rawStdio, rng *rand.Rand, notes map[int]*crashNote, nextSlot *int, run int,
	batchTime *time.Duration, stats *crashStats) []*crashOp {
	t.Helper()
	ops := planCrashOps(rng, notes, nextSlot, run, 1+rng.IntN(5))
	sent := time.Now()
	for _, op := range ops {
		op.id = s.send(t, "tools/call", map[string]any{"name": op.tool, "arguments": op.args})
	}
	stats.opsSent += len(ops)
	if run%5 == 0 {
		s.wait(t, s.nextID)
		*batchTime = (*batchTime*3 + time.Since(sent)) / 4
	} else {
		time.Sleep(time.Until(sent.Add(time.Duration(rng.Int64N(int64(*batchTime) + 1)))))
	}
	return ops
}

// crashSeed returns the number of runs (defaultCrashRun or
// VAULTGRAPH_CRASH_RUNS, divided by div) and the seed (random, or
// VAULTGRAPH_CRASH_SEED to replay one) with its generator.
func crashSeed(t *testing.T, div int) (runs int, seed uint64, rng *rand.Rand) {
	t.Helper()
	runs, seed, rng = crashPlan(t, defaultCrashRun, crashRunsEnv)
	return max(runs/div, 1), seed, rng
}

// crashPlan returns a crash test's number of runs (runs, or runsEnv's value
// when set) and its seed (random, or VAULTGRAPH_CRASH_SEED to replay one)
// with its generator, and logs how to replay it.
func crashPlan(t *testing.T, runs int, runsEnv string) (int, uint64, *rand.Rand) {
	t.Helper()
	if v, err := strconv.Atoi(os.Getenv(runsEnv)); err == nil && v > 0 {
		runs = v
	}
	seed := uint64(time.Now().UnixNano())
	if v, err := strconv.ParseUint(os.Getenv(crashSeedEnv), 10, 64); err == nil {
		seed = v
	}
	t.Logf("%s: seed %d (replay with %s=%d)", t.Name(), seed, crashSeedEnv, seed)
	return runs, seed, rand.New(rand.NewPCG(seed, seed))
}

// crashVault writes the crash tests' starting vault: ten whole notes in
// crash/, and returns it with the model of its notes and the next slot.
func crashVault(t *testing.T, rng *rand.Rand) (vault string, notes map[int]*crashNote, nextSlot int) {
	t.Helper()
	vault = filepath.Join(t.TempDir(), "vault")
	notes = map[int]*crashNote{}
	for range 10 {
		n := &crashNote{title: fmt.Sprintf("note-%d", nextSlot), body: crashBody(rng, fmt.Sprintf("seed%d", nextSlot))}
		notes[nextSlot] = n
		nextSlot++
		writeFile(t, vault, n.rel(), n.body)
	}
	return vault, notes, nextSlot
}

// applyCrashOps applies what landed of ops to the model after a crash: an
// answered write must have landed; an unanswered one may have or not, and
// the disk says which. A request a relay answered with "stopped before
// answering" (its owner died with it in flight) is unanswered.
func applyCrashOps(t *testing.T, run int, vault string, ops []*crashOp, answers map[int]map[string]json.RawMessage,
	notes map[int]*crashNote, mems *crashMemories, stats *crashStats) {
	t.Helper()
	for _, op := range ops {
		answered := false
		if msg := answers[op.id]; msg != nil && !lostInFlight(msg) {
			r := rawReply(t, op.tool, msg)
			if r.isError {
				t.Fatalf("crash: run %d: %s %v failed: %.300s", run, op.tool, op.args, r.text)
			}
			answered = true
			stats.opsAnswered++
		}
		if op.kind == "memory" {
			content := op.args["content"].(string)
			mems.sent[content] = true
			if answered {
				mems.acked[content] = true
			}
			continue
		}
		landed, repairing := landedState(t, vault, op)
		if repairing {
			stats.repaired++
		}
		if answered && !landed {
			t.Fatalf("crash: run %d: %s of note %d was answered but is not on disk", run, op.kind, op.slot)
		}
		if landed {
			stats.opsLanded++
			if op.after == nil {
				delete(notes, op.slot)
			} else {
				notes[op.slot] = op.after
			}
		}
	}
}

// lostInFlight reports whether msg is a relay's answer to a request its
// owner died serving (server.RunRelay: JSON-RPC error -32003).
func lostInFlight(msg map[string]json.RawMessage) bool {
	var e struct {
		Code int `json:"code"`
	}
	return msg["error"] != nil && json.Unmarshal(msg["error"], &e) == nil && e.Code == -32003
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// landedState reports whether the disk shows op's after state (true) or
// its before state (false), failing t when it shows neither or a mix.
// repairing is true when the note is cut short by the crash and its redo
// file will make it the after state.
func landedState(t *testing.T, vault string, op *crashOp) (landed, repairing bool) {
	t.Helper()
	matches := func(n *crashNote) bool {
		if n == nil {
			return true
		}
		if !fileExists(vault, n.rel()) {
			return false
		}
		body, err := checkWhole(readFile(t, vault, n.rel()))
		return err == nil && body == n.body
	}
	gone := func(n *crashNote, other *crashNote) bool {
		return n == nil || (other != nil && other.rel() == n.rel()) || !fileExists(vault, n.rel())
	}
	after := matches(op.after) && gone(op.before, op.after)
	before := matches(op.before) && gone(op.after, op.before)
	if !after && !before {
		// A change of an existing note is written in place, after a redo
		// file holding the old and the new content is flushed beside it:
		// a kill within that write (a few microseconds) leaves the note
		// cut short until the next scan repairs it from the redo file
		// (at the next start, or when another process takes the store
		// over). The checks after that scan find it whole and new.
		if op.kind == "update" && redoPending(t, vault, op.after.rel()) {
			return true, true
		}
		t.Fatalf("crash: %s of note %d (%v) left neither the old state nor the new: files %v", op.kind, op.slot, op.args["id"], listFiles(t, vault))
	}
	return after, false
}

// redoPending reports whether a redo file of a write in place (package
// confine) stands beside the note rel.
func redoPending(t *testing.T, vault, rel string) bool {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(vault, filepath.Dir(rel)))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if confine.RedoTarget(e.Name()) == filepath.Base(rel) {
			return true
		}
	}
	return false
}

// checkCrashState compares the vault with the model, then the store
// (through the freshly started server, after its startup sync) with the
// vault.
func checkCrashState(t *testing.T, s *rawStdio, vault string, notes map[int]*crashNote, stats *crashStats) {
	t.Helper()
	want := map[string]*crashNote{}
	for _, n := range notes {
		want[n.rel()] = n
	}
	var onDisk []string
	for _, rel := range listFiles(t, vault) {
		if strings.HasPrefix(rel, ".vaultgraph/") || strings.HasPrefix(rel, ".trash/") {
			continue // the vault's identity and rename journal, and deleted notes (trashOption): not notes
		}
		if strings.HasPrefix(filepath.Base(rel), ".") {
			stats.tempFiles[rel] = true // an atomic write's temporary file, cut short: hidden, never synced
			continue
		}
		onDisk = append(onDisk, rel)
		n := want[rel]
		if n == nil {
			t.Errorf("crash: unexpected file %s", rel)
			continue
		}
		body, err := checkWhole(readFile(t, vault, rel))
		if err != nil {
			t.Errorf("crash: %s: %v", rel, err)
		} else if body != n.body {
			t.Errorf("crash: %s holds another version than the last one written", rel)
		}
	}
	if len(onDisk) != len(want) {
		t.Errorf("crash: %d note files on disk, want %d", len(onDisk), len(want))
	}

	// The store after the startup sync: exactly these notes (get_hubs
	// lists every note while there are fewer than 50), each with the
	// content on disk.
	var hs []hub
	s.call(t, "get_hubs", map[string]any{"limit": 50}).decode(t, &hs)
	var gotIDs, wantIDs []string
	for _, h := range hs {
		gotIDs = append(gotIDs, h.ID)
	}
	for rel := range want {
		wantIDs = append(wantIDs, strings.ToLower(rel))
	}
	if !slices.Equal(sorted(gotIDs), sorted(wantIDs)) {
		t.Errorf("crash: the store holds %v, the vault %v", sorted(gotIDs), sorted(wantIDs))
	}
	for rel, n := range want {
		var got node
		s.call(t, "get_node", map[string]any{"id": strings.ToLower(rel)}).decode(t, &got)
		stats.notesChecked++
		if got.Title != n.title || (got.Content != n.body && !strings.HasPrefix(n.body, strings.TrimSuffix(got.Content, truncated))) {
			t.Errorf("crash: the store's %s: title %q, content %.80q; want title %q and the file's body", rel, got.Title, got.Content, n.title)
		}
	}
}

// crashMemories are the memory_store calls of the crash test: every one
// sent, and those the server answered (acknowledged, so durable).
type crashMemories struct {
	sent, acked map[string]bool
}

// checkCrashMemories lists every memory after a restart: each acknowledged
// memory must be there, and nothing that was never sent.
func checkCrashMemories(t *testing.T, s *rawStdio, mems crashMemories, stats *crashStats) {
	t.Helper()
	found := map[string]bool{}
	for offset := 0; ; offset += 100 {
		var page struct {
			Success bool `json:"success"`
			Data    struct {
				Memories []struct {
					Content string `json:"content"`
				} `json:"memories"`
				HasMore bool `json:"has_more"`
			} `json:"data"`
		}
		s.call(t, "memory_list", map[string]any{"limit": 100, "offset": offset}).decode(t, &page)
		if !page.Success {
			t.Fatalf("crash: memory_list failed")
		}
		for _, m := range page.Data.Memories {
			found[m.Content] = true
			if !mems.sent[m.Content] {
				t.Errorf("crash: memory %q was never sent", m.Content)
			}
		}
		if !page.Data.HasMore {
			break
		}
	}
	for content := range mems.acked {
		stats.notesChecked++
		if !found[content] {
			t.Errorf("crash: acknowledged memory %q is missing after the restart", content)
		}
	}
}
