package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// neo4jServer is the Neo4j the benchmark runs against: the one NEO4J_URI
// names, or a local one vgbench starts from Maven jars.
type neo4jServer struct {
	uri, user, password, database string
	source                        string // "NEO4J_URI" or "neo4j-local.sh"
	version, edition              string
	heapMax                       int64  // bytes, from the JVM
	pageCache                     string // server.memory.pagecache.size
	dataDir                       string // server.directories.data, when on this machine
	pid                           int    // the JVM's process ID, when on this machine (jvmCPU)

	timeout time.Duration // VAULTGRAPH_NEO4J_TIMEOUT when set

	driver neo4j.DriverWithContext
	stop   func() // stops a server vgbench started
}

// localPageCache is the page cache of the Neo4j vgbench starts, unless
// NEO4J_LOCAL_PAGECACHE says otherwise. Neo4j's operations manual sizes
// the page cache to hold the whole store; the 100k vault's store is
// 1.45 GiB, and with neo4j-local.sh's default of 256 MiB a depth=1 read
// measured 1.7 ms p50 against 1.2–1.4 ms with 2 GiB (same database, same
// hour, both orders).
const localPageCache = "2g"

// launchTimeout bounds a local Neo4j start; the first run downloads jars.
const launchTimeout = 8 * time.Minute

// openNeo4j connects to NEO4J_URI, or starts scripts/neo4j-local/neo4j-local.sh
// with a temporary data folder. The caller must call close.
func openNeo4j(ctx context.Context, repo string, logger *slog.Logger) (*neo4jServer, error) {
	s := &neo4jServer{
		uri: os.Getenv("NEO4J_URI"), user: os.Getenv("NEO4J_USER"),
		password: os.Getenv("NEO4J_PASSWORD"), database: os.Getenv("NEO4J_DATABASE"),
		source: "NEO4J_URI", stop: func() {},
	}
	if s.uri == "" {
		if err := s.launch(repo, logger); err != nil {
			return nil, err
		}
	}
	auth := neo4j.NoAuth()
	if s.user != "" {
		auth = neo4j.BasicAuth(s.user, s.password, "")
	}
	d, err := neo4j.NewDriverWithContext(s.uri, auth)
	if err != nil {
		s.stop()
		return nil, err
	}
	s.driver = d
	if err := s.describe(ctx); err != nil {
		s.close()
		return nil, fmt.Errorf("neo4j at %s: %w", s.uri, err)
	}
	logger.Info("neo4j ready", "uri", s.uri, "source", s.source, "version", s.version, "heap_max", s.heapMax)
	return s, nil
}

// launch starts the local launcher in its own process group, data in a
// temporary folder, and waits for its NEO4J_READY line.
func (s *neo4jServer) launch(repo string, logger *slog.Logger) error {
	dir, err := os.MkdirTemp("", "vgbench-neo4j-")
	if err != nil {
		return err
	}
	script := filepath.Join(repo, "scripts", "neo4j-local", "neo4j-local.sh")
	cmd := exec.Command("bash", script, "--data", filepath.Join(dir, "home"), "--port", "0", "--watch-stdin")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if os.Getenv("NEO4J_LOCAL_PAGECACHE") == "" {
		cmd.Env = append(os.Environ(), "NEO4J_LOCAL_PAGECACHE="+localPageCache)
	}
	logf, err := os.Create(filepath.Join(dir, "launcher.log"))
	if err != nil {
		return err
	}
	cmd.Stderr = logf
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	stdin, err := cmd.StdinPipe() // held open: EOF stops Neo4j if vgbench dies
	if err != nil {
		return err
	}
	logger.Info("starting a local Neo4j from Maven jars", "script", script, "dir", dir)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", script, err)
	}
	done := make(chan struct{})
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if line := sc.Text(); strings.HasPrefix(line, "NEO4J_READY ") {
				ready <- line
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	go func() { _ = cmd.Wait(); logf.Close(); close(done) }()
	s.source = "neo4j-local.sh"
	s.stop = func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		_ = stdin.Close()
		_ = os.RemoveAll(dir)
	}
	select {
	case line := <-ready:
		s.uri = strings.Fields(line)[1]
		return nil
	case <-done:
		log, _ := os.ReadFile(filepath.Join(dir, "launcher.log"))
		_ = os.RemoveAll(dir)
		return fmt.Errorf("neo4j-local.sh exited before ready:\n%s", log)
	case <-time.After(launchTimeout):
		s.stop()
		return fmt.Errorf("neo4j-local.sh not ready after %s", launchTimeout)
	}
}

func (s *neo4jServer) query(ctx context.Context, q string) ([]*neo4j.Record, error) {
	var opts []neo4j.ExecuteQueryConfigurationOption
	if s.database != "" {
		opts = append(opts, neo4j.ExecuteQueryWithDatabase(s.database))
	}
	res, err := neo4j.ExecuteQuery(ctx, s.driver, q, nil, neo4j.EagerResultTransformer, opts...)
	if err != nil {
		return nil, err
	}
	return res.Records, nil
}

// describe reads the version, the heap and the data folder, retrying while
// a fresh server opens its databases.
func (s *neo4jServer) describe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		recs, err := s.query(ctx, "CALL dbms.components() YIELD versions, edition RETURN versions[0], edition")
		if err == nil && len(recs) > 0 {
			s.version, s.edition = fmt.Sprint(recs[0].Values[0]), fmt.Sprint(recs[0].Values[1])
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no answer: %w", errors.Join(err, ctx.Err()))
		case <-time.After(500 * time.Millisecond):
		}
	}
	if recs, err := s.query(ctx, "CALL dbms.queryJmx('java.lang:type=Memory') YIELD attributes RETURN attributes.HeapMemoryUsage.value.properties.max"); err == nil && len(recs) > 0 {
		if v, ok := recs[0].Values[0].(int64); ok {
			s.heapMax = v
		}
	}
	if recs, err := s.query(ctx, "CALL dbms.queryJmx('java.lang:type=Runtime') YIELD attributes RETURN attributes.Pid.value"); err == nil && len(recs) > 0 {
		if pid, ok := recs[0].Values[0].(int64); ok {
			if _, err := os.Stat(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
				s.pid = int(pid)
			}
		}
	}
	if recs, err := s.query(ctx, "SHOW SETTINGS YIELD name, value WHERE name IN ['server.directories.data', 'server.memory.pagecache.size'] RETURN name, value"); err == nil {
		for _, r := range recs {
			switch fmt.Sprint(r.Values[0]) {
			case "server.directories.data":
				if dir := fmt.Sprint(r.Values[1]); isDir(dir) {
					s.dataDir = dir
				}
			case "server.memory.pagecache.size":
				s.pageCache = fmt.Sprint(r.Values[1])
			}
		}
	}
	return nil
}

// jvmCPU is the CPU time (user + system) the Neo4j JVM has used so far:
// from /proc/<pid>/stat when the JVM runs on this machine, else from its
// OperatingSystem MXBean; ok is false when neither answers. On a busy
// machine a sync's wall time swings with the other load, its CPU seconds
// much less (issue 44).
func (s *neo4jServer) jvmCPU(ctx context.Context) (time.Duration, bool) {
	if s.pid > 0 {
		if d, err := procCPU(s.pid); err == nil {
			return d, true
		}
	}
	recs, err := s.query(ctx, "CALL dbms.queryJmx('java.lang:type=OperatingSystem') YIELD attributes RETURN attributes.ProcessCpuTime.value")
	if err != nil || len(recs) == 0 {
		return 0, false
	}
	ns, ok := recs[0].Values[0].(int64)
	return time.Duration(ns), ok && ns > 0
}

// procCPU reads utime + stime of a process from /proc/<pid>/stat.
func procCPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces: count fields after ")".
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(data[i+1:])) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64) // field 14
	stime, err2 := strconv.ParseInt(f[12], 10, 64) // field 15
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's times: 100 on
// every Linux architecture Go supports.
const clockTicks = 100

// clean empties the database (the vault's graph and migration records) in
// batches, so a cold sync starts from nothing. Indexes stay.
func (s *neo4jServer) clean(ctx context.Context) error {
	// CALL ... IN TRANSACTIONS needs an auto-commit transaction: session.Run.
	sess := s.driver.NewSession(ctx, neo4j.SessionConfig{DatabaseName: s.database})
	defer sess.Close(ctx)
	res, err := sess.Run(ctx, "MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS", nil)
	if err != nil {
		return err
	}
	_, err = res.Consume(ctx)
	return err
}

// storeSize is the on-disk size of the database's store files and of its
// transaction logs, or -1 when the data folder is not on this machine.
func (s *neo4jServer) storeSize() (store, txlogs int64) {
	if s.dataDir == "" {
		return -1, -1
	}
	db := s.database
	if db == "" {
		db = "neo4j"
	}
	return duBytes(filepath.Join(s.dataDir, "databases", db)), duBytes(filepath.Join(s.dataDir, "transactions", db))
}

func (s *neo4jServer) env() []string {
	env := []string{"VAULTGRAPH_NEO4J_URI=" + s.uri}
	if s.user != "" {
		env = append(env, "VAULTGRAPH_NEO4J_USER="+s.user, "VAULTGRAPH_NEO4J_PASSWORD="+s.password)
	}
	if s.database != "" {
		env = append(env, "VAULTGRAPH_NEO4J_DATABASE="+s.database)
	}
	if s.timeout > 0 {
		env = append(env, "VAULTGRAPH_NEO4J_TIMEOUT="+s.timeout.String())
	}
	return env
}

func (s *neo4jServer) close() {
	if s.driver != nil {
		_ = s.driver.Close(context.Background())
	}
	s.stop()
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// duBytes is the disk space the files under dir use (allocated blocks, as
// du reports, so preallocated but sparse store files count what they hold).
func duBytes(dir string) int64 {
	var total int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			total += st.Blocks * 512
		} else {
			total += info.Size()
		}
		return nil
	})
	return total
}
