package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// target is one store configuration of the vaultgraph binary.
type target struct {
	name string   // "embedded" or "neo4j"
	args []string // --store and, for embedded, --state-dir
	env  []string // VAULTGRAPH_NEO4J_* for Neo4j
}

// baseEnv is the environment of every vaultgraph process: ours, minus any
// VAULTGRAPH_ setting of the user's (but the VAULTGRAPH_PPROF developer
// switch, to profile a benchmark's serve), plus a config home with no
// config file, so only the flags and env the benchmark sets apply.
//
// The built-in provider runs with its static table alone
// (embedding.model: static): the default transformer's first embedding of
// 100k notes takes hours on 2 cores, and its background work would share
// the CPUs with every read measured. The transformer's search latency and
// throughput are measured in process (docs/BENCHMARKS.md, issue 27).
func baseEnv(configHome string, extra []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		user := strings.HasPrefix(kv, "VAULTGRAPH_") && !strings.HasPrefix(kv, "VAULTGRAPH_PPROF=")
		if !user && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			env = append(env, kv)
		}
	}
	env = append(env, "XDG_CONFIG_HOME="+configHome, "VAULTGRAPH_LOG_LEVEL=warn", "VAULTGRAPH_EMBEDDING_MODEL=static")
	return append(env, extra...)
}

// runResult is one finished vaultgraph command.
type runResult struct {
	wall    time.Duration
	cpu     time.Duration // user + system
	peakRSS int64         // bytes, the process's high-water mark (getrusage)
	// graph and embed are the seconds the sync logged for writing the notes
	// and for embedding them (0 when it did not log them).
	graph, embed float64
}

// logSeconds returns the seconds= value of the last log line with msg.
func logSeconds(stderr, msg string) float64 {
	var secs float64
	for _, line := range strings.Split(stderr, "\n") {
		if !strings.Contains(line, `msg="`+msg+`"`) {
			continue
		}
		if _, v, ok := strings.Cut(line, " seconds="); ok {
			v, _, _ = strings.Cut(v, " ")
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				secs = f
			}
		}
	}
	return secs
}

// runSync runs "vaultgraph sync --embed" on vault and measures it: the
// graph and the vectors (the static table's, see baseEnv), as a sync did
// before --embed existed, so that the serve measured next has no pass of
// its own running beside the reads.
func (b *bench) runSync(ctx context.Context, vault string, t target) (runResult, error) {
	args := append([]string{"sync", "--embed", "--vault", vault}, t.args...)
	cmd := exec.CommandContext(ctx, b.bin, args...)
	// Info level (after baseEnv's warn: the last value wins) for the
	// summary lines logSeconds reads.
	cmd.Env = append(baseEnv(b.configHome, t.env), "VAULTGRAPH_LOG_LEVEL=info", "VAULTGRAPH_LOG_FORMAT=text")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return runResult{}, fmt.Errorf("vaultgraph %s: %w\n%s", strings.Join(args, " "), err, lastLines(stderr.String(), 20))
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss * 1024 // kilobytes on Linux
	}
	return runResult{wall: wall, peakRSS: rss, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(),
		graph: logSeconds(stderr.String(), "vault: sync done"),
		embed: logSeconds(stderr.String(), "semantic: embedding done")}, nil
}

// server is a running "vaultgraph serve" over stdio with an rpcClient.
type server struct {
	c      *rpcClient
	cmd    *exec.Cmd
	stderr *lockedWriter
	ready  time.Duration // spawn to the end of the MCP handshake
	synced time.Duration // spawn to the end of serve's first sync
	// firstRead is spawn to the first correct answer of get_node on the
	// probe note, asked right after the handshake (and again until the
	// answer is the note, without the "still syncing" notice): what a
	// client that starts serve and reads at once waits (issue 49.8).
	firstRead time.Duration
	tools     []mcp.Tool
}

// startServe spawns "vaultgraph serve" on vault (watching it), completes
// the MCP handshake and waits for serve's first sync. serve answers at
// once and syncs in the background (reads meanwhile wait or answer with a
// notice), so ready is when a client is served and synced when it is
// served from a store that follows the vault.
func (b *bench) startServe(ctx context.Context, vault string, t target, probe string) (*server, error) {
	args := append([]string{"serve", "--vault", vault}, t.args...)
	stderr := &lockedWriter{w: &bytes.Buffer{}}
	cmd := exec.CommandContext(ctx, b.bin, args...)
	// Info, as users run it: waitLog reads serve's progress lines.
	cmd.Env = append(baseEnv(b.configHome, t.env), "VAULTGRAPH_LOG_LEVEL=info", "VAULTGRAPH_LOG_FORMAT=text")
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start vaultgraph serve: %w", err)
	}
	s := &server{c: newRPCClient(stdin, stdout), cmd: cmd, stderr: stderr}
	initCtx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	// The first sync's end is watched from the spawn on, beside the
	// handshake and the probe read, so neither delays its timing.
	synced := make(chan bool, 1)
	go func() {
		_, ok := s.waitLogEvery(initCtx, "vault: sync done", 10*time.Minute, 5*time.Millisecond)
		s.synced = time.Since(start)
		synced <- ok
	}()
	if s.tools, err = s.c.initialize(initCtx); err != nil {
		s.close()
		return nil, fmt.Errorf("initialize vaultgraph serve: %w\n%s", err, lastLines(stderr.String(), 20))
	}
	s.ready = time.Since(start)
	if probe != "" {
		for {
			text, _, err := callTool(initCtx, s, "get_node", map[string]any{"id": probe})
			if err == nil && strings.Contains(text, probe) && !strings.Contains(text, "still syncing") {
				s.firstRead = time.Since(start)
				break
			}
			if initCtx.Err() != nil {
				s.close()
				return nil, fmt.Errorf("vaultgraph serve never answered get_node %q correctly (last: %v)", probe, err)
			}
		}
	}
	if !<-synced {
		s.close()
		return nil, fmt.Errorf("vaultgraph serve did not finish its first sync\n%s", lastLines(stderr.String(), 20))
	}
	return s, nil
}

// waitLog waits up to max for serve to log a line with msg, polling its
// stderr; it returns how long it waited and whether the line came.
func (s *server) waitLog(ctx context.Context, msg string, max time.Duration) (time.Duration, bool) {
	return s.waitLogEvery(ctx, msg, max, 50*time.Millisecond)
}

// waitLogEvery is waitLog polling every poll.
func (s *server) waitLogEvery(ctx context.Context, msg string, max, poll time.Duration) (time.Duration, bool) {
	start := time.Now()
	for time.Since(start) < max && ctx.Err() == nil {
		if strings.Contains(s.stderr.String(), `msg="`+msg) {
			return time.Since(start), true
		}
		time.Sleep(poll)
	}
	return time.Since(start), false
}

// hasTool reports whether the server lists the tool.
func (s *server) hasTool(name string) bool {
	for _, t := range s.tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// peakRSS is the server's resident-memory high-water mark so far (VmHWM).
func (s *server) peakRSS() int64 {
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// close ends the session: stdin closes, serve shuts down.
func (s *server) close() {
	_ = s.c.close()
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
